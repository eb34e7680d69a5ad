/** The wire form of emitted audit events: RFC 3881 XML (read back with @xmldom/xmldom), the RFC 5424 header and octet counting by bytes. */
import { DOMParser } from '@xmldom/xmldom';
import type { Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { applicationActivityEvent, userLoginEvent } from '../../service/audit/events.js';
import { auditXml, frameOctetCounted, priorityOf, syslogMessage, xmlText } from '../../service/audit/wire.js';
import type { NewAudit } from '../../service/storage/audits.js';

const AWKWARD = `Zoë <admin> & "the 'root'" — 患者 🩺`;

function parse(xml: string): Element {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, message) => { if (level !== 'warning') errors.push(`${level}: ${message}`); } }).parseFromString(xml, 'text/xml');
  expect(errors).toEqual([]);
  const root = doc.documentElement;
  if (root === null) throw new Error('no root');
  return root;
}

function only(parent: Element, name: string): Element {
  const found = Array.from(parent.childNodes).filter((n): n is Element => n.nodeType === 1 && (n as Element).tagName === name);
  expect(found, name).toHaveLength(1);
  return found[0] as Element;
}

function all(parent: Element, name: string): Element[] {
  return Array.from(parent.childNodes).filter((n): n is Element => n.nodeType === 1 && (n as Element).tagName === name);
}

const at = new Date('2026-03-04T05:06:07.089Z');

function fullAudit(): NewAudit {
  return {
    eventIdentification: {
      eventDateTime: at,
      eventActionCode: 'R',
      eventOutcomeIndicator: '0',
      eventID: { code: '110110', displayName: 'Patient Record', codeSystemName: 'DCM' },
      eventTypeCode: { code: 'ITI-9', displayName: 'PIX Query', codeSystemName: 'IHE Transactions' },
    },
    activeParticipant: [
      { userID: AWKWARD, alternativeUserID: '4242', userName: 'Zoë', userIsRequestor: 'true', networkAccessPointID: '10.0.0.7', networkAccessPointTypeCode: '2', roleIDCode: { code: '110153', displayName: 'Source Role ID', codeSystemName: 'DCM' } },
      { userID: 'Junction', userIsRequestor: 'false' },
    ],
    auditSourceIdentification: { auditSourceID: 'Junction', auditEnterpriseSiteID: 'Clinic', auditSourceTypeCode: { code: '4', displayName: 'Application Server', codeSystemName: 'DCM' } },
    participantObjectIdentification: [
      {
        participantObjectID: '975cac30-68e5-11e4-bf2a-04012ce65b02^^^ECID&ECID&ISO',
        participantObjectTypeCode: '1',
        participantObjectTypeCodeRole: '1',
        participantObjectIDTypeCode: { code: '2', displayName: 'Patient Number', codeSystemName: 'RFC-3881' },
        participantObjectName: AWKWARD,
        participantObjectDetail: [{ type: 'reason', value: AWKWARD }],
      },
      { participantObjectID: 'q', participantObjectQuery: Buffer.from('PID.3=1234').toString('base64') },
    ],
  };
}

describe('audit XML', () => {
  it('writes RFC 3881 element and attribute names with DICOM and RFC 3881 code attributes', () => {
    const xml = auditXml(fullAudit());
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?><AuditMessage>')).toBe(true);
    const root = parse(xml);
    expect(root.tagName).toBe('AuditMessage');
    expect(Array.from(root.childNodes).map((n) => (n as Element).tagName)).toEqual(['EventIdentification', 'ActiveParticipant', 'ActiveParticipant', 'AuditSourceIdentification', 'ParticipantObjectIdentification', 'ParticipantObjectIdentification']);

    const event = only(root, 'EventIdentification');
    expect(event.getAttribute('EventActionCode')).toBe('R');
    expect(event.getAttribute('EventDateTime')).toBe('2026-03-04T05:06:07.089Z');
    expect(event.getAttribute('EventOutcomeIndicator')).toBe('0');
    const eventID = only(event, 'EventID');
    expect([eventID.getAttribute('csd-code'), eventID.getAttribute('codeSystemName'), eventID.getAttribute('originalText'), eventID.getAttribute('displayName')]).toEqual(['110110', 'DCM', 'Patient Record', 'Patient Record']);
    expect(only(event, 'EventTypeCode').getAttribute('csd-code')).toBe('ITI-9');

    const [user, system] = all(root, 'ActiveParticipant') as [Element, Element];
    expect(user.getAttribute('UserID')).toBe(AWKWARD);
    expect(user.getAttribute('AlternativeUserID')).toBe('4242');
    expect(user.getAttribute('UserName')).toBe('Zoë');
    expect(user.getAttribute('UserIsRequestor')).toBe('true');
    expect(user.getAttribute('NetworkAccessPointID')).toBe('10.0.0.7');
    expect(user.getAttribute('NetworkAccessPointTypeCode')).toBe('2');
    expect(only(user, 'RoleIDCode').getAttribute('csd-code')).toBe('110153');
    expect(system.hasAttribute('AlternativeUserID')).toBe(false);
    expect(all(system, 'RoleIDCode')).toEqual([]);

    const source = only(root, 'AuditSourceIdentification');
    expect(source.getAttribute('AuditSourceID')).toBe('Junction');
    expect(source.getAttribute('AuditEnterpriseSiteID')).toBe('Clinic');
    expect(only(source, 'AuditSourceTypeCode').getAttribute('csd-code')).toBe('4');

    const [patient, query] = all(root, 'ParticipantObjectIdentification') as [Element, Element];
    expect(patient.getAttribute('ParticipantObjectID')).toBe('975cac30-68e5-11e4-bf2a-04012ce65b02^^^ECID&ECID&ISO');
    expect(patient.getAttribute('ParticipantObjectTypeCode')).toBe('1');
    expect(patient.getAttribute('ParticipantObjectTypeCodeRole')).toBe('1');
    expect(only(patient, 'ParticipantObjectIDTypeCode').getAttribute('csd-code')).toBe('2');
    expect(only(patient, 'ParticipantObjectName').textContent).toBe(AWKWARD);
    const detail = only(patient, 'ParticipantObjectDetail');
    expect(detail.getAttribute('type')).toBe('reason');
    // xs:base64Binary in both schemas.
    expect(Buffer.from(detail.getAttribute('value') ?? '', 'base64').toString('utf8')).toBe(AWKWARD);
    expect(only(query, 'ParticipantObjectQuery').textContent).toBe(Buffer.from('PID.3=1234').toString('base64'));
  });

  it('round-trips markup characters, quotes, line breaks and non-ASCII in attributes and text', () => {
    const tricky = `a"b'c<d>e&f]]>g\n\th\r${AWKWARD}`;
    const audit = fullAudit();
    audit.activeParticipant = [{ userID: tricky }];
    (audit.participantObjectIdentification[0] ?? {}).participantObjectName = tricky;
    const root = parse(auditXml(audit));
    expect(only(root, 'ActiveParticipant').getAttribute('UserID')).toBe(tricky);
    // Text content keeps its characters; a bare \r in text is normalised to \n by any XML parser.
    expect(only(all(root, 'ParticipantObjectIdentification')[0] as Element, 'ParticipantObjectName').textContent).toBe(tricky.replace('\r', '\n'));
  });

  it('replaces characters XML cannot carry, so the document always parses', () => {
    const audit = fullAudit();
    audit.activeParticipant = [{ userID: 'bell\u0007null\u0000lone\uD800end' }];
    const root = parse(auditXml(audit));
    expect(only(root, 'ActiveParticipant').getAttribute('UserID')).toBe('bell\uFFFDnull\uFFFDlone\uFFFDend');
    expect(xmlText('ok\t\n🩺')).toBe('ok\t\n🩺');
  });

  it('writes the events Junction emits', () => {
    for (const audit of [applicationActivityEvent('start', 'Junction', at), userLoginEvent({ username: AWKWARD, address: '::1', method: 'local', success: false, reason: 'wrong password', auditSourceID: 'Junction', at })]) {
      const root = parse(auditXml(audit));
      expect(only(only(root, 'EventIdentification'), 'EventID').getAttribute('codeSystemName')).toBe('DCM');
    }
  });
});

describe('syslog message and framing', () => {
  it('has an RFC 5424 header: PRI, version, time, host, app name, process, message ID and no structured data', () => {
    const message = syslogMessage(fullAudit(), { hostname: 'clinic-pc', procId: 1234, at });
    expect(message.startsWith('<85>1 2026-03-04T05:06:07.089Z clinic-pc junction 1234 IHE+RFC-3881 - <?xml version="1.0" encoding="UTF-8"?><AuditMessage>')).toBe(true);
  });

  it('uses facility 10 with notice for success and warning for a failure', () => {
    const audit = fullAudit();
    expect(priorityOf(audit)).toBe(85);
    audit.eventIdentification.eventOutcomeIndicator = '4';
    expect(priorityOf(audit)).toBe(84);
    audit.eventIdentification.eventOutcomeIndicator = '12';
    expect(priorityOf(audit)).toBe(84);
  });

  it('keeps header fields to printable ASCII without spaces, so they never shift', () => {
    const message = syslogMessage(fullAudit(), { hostname: 'my pc é', procId: '', at });
    expect(message.split(' ').slice(0, 7)).toEqual(['<85>1', '2026-03-04T05:06:07.089Z', 'mypc', 'junction', '-', 'IHE+RFC-3881', '-']);
  });

  it('counts octets as UTF-8 bytes, not characters', () => {
    const message = `<85>1 - - - - - - ${AWKWARD}`;
    const frame = frameOctetCounted(message);
    const space = frame.indexOf(0x20);
    const length = Number(frame.subarray(0, space).toString('ascii'));
    expect(length).toBe(Buffer.byteLength(message, 'utf8'));
    expect(length).toBeGreaterThan(message.length);
    expect(frame.subarray(space + 1).toString('utf8')).toBe(message);
    expect(frame.length).toBe(space + 1 + length);
  });
});
