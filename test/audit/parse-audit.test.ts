import { describe, expect, it } from 'vitest';
import { parseAuditMessage, parseAuditXml } from '../../service/audit/parse-audit.js';
import { XML_SAMPLES, rfc3164, rfc5424, sample } from './samples.js';

const received = new Date('2026-11-23T10:00:00Z');

describe('RFC 3881 and DICOM audit messages', () => {
  it('maps a DICOM query (ITI-9) into the audit model: codes from csd-code and originalText, text kept as sent', () => {
    const message = rfc5424(sample('dicom-pix-query'));
    const { audit, problem } = parseAuditMessage(message, received);
    expect(problem).toBeUndefined();
    expect(audit.rawMessage).toBe(message);
    expect(audit.syslog).toMatchObject({ type: 'RFC5424', prival: 85, facility: 'sec', msgID: 'IHE+RFC-3881' });
    expect(audit.eventIdentification).toEqual({
      eventDateTime: new Date('2026-11-23T08:30:12.456Z'),
      eventActionCode: 'E',
      eventOutcomeIndicator: '0',
      eventID: { code: '110112', codeSystemName: 'DCM', displayName: 'Query' },
      eventTypeCode: { code: 'ITI-9', codeSystemName: 'IHE Transactions', displayName: 'PIX Query' },
    });
    expect(audit.activeParticipant).toEqual([
      {
        userID: 'clinic-emr|LAB',
        alternativeUserID: '3141',
        userIsRequestor: 'true',
        networkAccessPointID: '10.20.0.12',
        networkAccessPointTypeCode: '2',
        roleIDCode: { code: '110153', codeSystemName: 'DCM', displayName: 'Source Role ID' },
      },
      {
        userID: 'pix-manager|REGION',
        userIsRequestor: 'false',
        networkAccessPointID: 'pix.region.example',
        networkAccessPointTypeCode: '1',
        roleIDCode: { code: '110152', codeSystemName: 'DCM', displayName: 'Destination Role ID' },
      },
    ]);
    expect(audit.auditSourceIdentification).toEqual({
      auditSourceID: 'clinic-emr',
      auditSourceTypeCode: { code: '4', codeSystemName: 'DCM', displayName: 'Application Server' },
    });
    const [patient, query] = audit.participantObjectIdentification;
    expect(patient).toEqual({
      participantObjectID: 'PT-004512^^^&1.3.6.1.4.1.21367.13.20.1000&ISO',
      participantObjectTypeCode: '1',
      participantObjectTypeCodeRole: '1',
      participantObjectIDTypeCode: { code: '2', codeSystemName: 'RFC-3881', displayName: 'Patient Number' },
    });
    expect(query?.participantObjectQuery).toMatch(/^TVNIfF5\+/);
    expect(Buffer.from(query?.participantObjectQuery ?? '', 'base64').toString()).toContain('QPD|IHE PIX Query');
    expect(query?.participantObjectDetail).toEqual([{ type: 'MSH-10', value: 'US04ODIxOQ==' }]);
  });

  it('maps an RFC 3881 patient record read: code/displayName attributes, names, details, a source type as text', () => {
    const { audit, problem } = parseAuditMessage(sample('rfc3881-patient-read.rfc3164'), received);
    expect(problem).toBeUndefined();
    expect(audit.syslog).toMatchObject({ type: 'RFC3164', appName: 'clinic-emr', pid: '4410' });
    expect(audit.eventIdentification).toEqual({
      eventDateTime: new Date('2026-11-23T07:02:17Z'),
      eventActionCode: 'R',
      eventOutcomeIndicator: '0',
      eventID: { code: '110110', codeSystemName: 'DCM', displayName: 'Patient Record' },
    });
    expect(audit.activeParticipant[0]).toMatchObject({ userID: 'dr.okafor', userName: 'Chidi Okafor', roleIDCode: { code: 'doctor', displayName: 'Doctor' } });
    expect(audit.auditSourceIdentification).toEqual({ auditSourceID: 'clinic-emr', auditEnterpriseSiteID: 'Riverside Clinic', auditSourceTypeCode: { code: '4' } });
    expect(audit.participantObjectIdentification).toEqual([
      {
        participantObjectID: 'PT-004512^^^&1.3.6.1.4.1.21367.13.20.1000&ISO',
        participantObjectTypeCode: '1',
        participantObjectTypeCodeRole: '1',
        participantObjectIDTypeCode: { code: '2', codeSystemName: 'RFC-3881', displayName: 'Patient Number' },
        participantObjectName: 'Naledi Dlamini',
        participantObjectDetail: [{ type: 'encounter', value: 'RU5DLTIwMjYtMTEtMjMtMDE3' }],
      },
    ]);
  });

  it('reads an RFC 3881 login with AuditSourceTypeCode as a code attribute, and a registry query with two details', () => {
    const login = parseAuditXml(sample('rfc3881-login'), received);
    expect('audit' in login && login.audit.eventIdentification.eventTypeCode).toEqual({ code: '110122', codeSystemName: 'DCM', displayName: 'Login' });
    expect('audit' in login && login.audit.auditSourceIdentification?.auditSourceTypeCode).toEqual({ code: '1' });
    const query = parseAuditXml(sample('rfc3881-registry-query'), received);
    expect('audit' in query && query.audit.participantObjectIdentification[1]?.participantObjectDetail).toHaveLength(2);
  });

  it('parses every sample as an audit, with participants and objects always arrays', () => {
    for (const name of XML_SAMPLES) {
      for (const message of [sample(name), rfc5424(sample(name)), rfc3164(sample(name))]) {
        const { audit, problem } = parseAuditMessage(message, received);
        expect(problem, name).toBeUndefined();
        expect(Array.isArray(audit.activeParticipant), name).toBe(true);
        expect(Array.isArray(audit.participantObjectIdentification), name).toBe(true);
        expect(audit.eventIdentification.eventID?.code, name).toMatch(/^1101\d\d$/);
      }
    }
  });

  it('parses a bare XML payload with no syslog header, keeping it raw and without syslog fields', () => {
    const xml = sample('dicom-app-start');
    const { audit, problem } = parseAuditMessage(xml, received);
    expect(problem).toBeUndefined();
    expect(audit.syslog).toBeUndefined();
    expect(audit.rawMessage).toBe(xml);
    expect(audit.eventIdentification.eventTypeCode?.code).toBe('110120');
  });

  it('takes the receive time when EventDateTime is missing or unreadable, and reads zones in their forms', () => {
    const at = (time: string | undefined): Date | undefined => {
      const attr = time === undefined ? '' : ` EventDateTime="${time}"`;
      const parsed = parseAuditXml(`<AuditMessage><EventIdentification${attr}/></AuditMessage>`, received);
      return 'audit' in parsed ? parsed.audit.eventIdentification.eventDateTime : undefined;
    };
    expect(at(undefined)).toEqual(received);
    expect(at('yesterday')).toEqual(received);
    expect(at('2026-13-45T99:00:00Z')).toEqual(received);
    expect(at('2026-11-23T12:00:00.123456+0200')).toEqual(new Date('2026-11-23T10:00:00.123Z'));
    expect(at('2026-11-23T12:00:00-03')).toEqual(new Date('2026-11-23T15:00:00Z'));
  });

  it('matches names with a lower-case first letter and namespace prefixes, as OpenHIM lower-cases them', () => {
    const parsed = parseAuditXml(
      '<a:auditMessage xmlns:a="urn:x"><a:eventIdentification eventActionCode="C"><a:eventID code="110106"/></a:eventIdentification></a:auditMessage>',
      received,
    );
    expect('audit' in parsed && parsed.audit.eventIdentification).toMatchObject({ eventActionCode: 'C', eventID: { code: '110106' } });
  });

  it('reads past the whitespace and NULs some framing leaves after the XML, Unicode spaces included, but not other text', () => {
    const xml = '<AuditMessage><EventIdentification EventActionCode="R"/></AuditMessage>';
    for (const tail of ['\n', '\r\n\0\0', ' \t\0 \n', '\u3000\u00a0\n']) {
      const parsed = parseAuditXml(xml + tail, received);
      expect('audit' in parsed && parsed.audit.eventIdentification.eventActionCode, JSON.stringify(tail)).toBe('R');
    }
    expect(parseAuditXml(`${xml}\0x`, received)).toHaveProperty('problem');
  });

  it('matches a name only by its first letter in either case, not by any other spelling', () => {
    const parsed = parseAuditXml('<AUDITMESSAGE><EventIdentification EventActionCode="R"/></AUDITMESSAGE>', received);
    expect(parsed).toEqual({ problem: "the XML's root is AUDITMESSAGE, not AuditMessage" });
    const participant = parseAuditXml('<auditMessage><activeParticipant userID="a"/><ACTIVEPARTICIPANT UserID="b"/></auditMessage>', received);
    expect('audit' in participant && participant.audit.activeParticipant).toEqual([{ userID: 'a' }]);
  });
});

describe('messages that are not audits are kept raw', () => {
  const malformed = (message: string): { problem?: string; audit: ReturnType<typeof parseAuditMessage>['audit'] } => parseAuditMessage(message, received);

  it('keeps a wrong root with its syslog header, now as its time and empty arrays', () => {
    const message = rfc5424('<Other/>');
    const { audit, problem } = malformed(message);
    expect(problem).toMatch(/root is Other/);
    expect(audit.syslog?.type).toBe('RFC5424');
    expect({ ...audit, syslog: undefined }).toEqual({
      rawMessage: message,
      syslog: undefined,
      eventIdentification: { eventDateTime: received },
      activeParticipant: [],
      participantObjectIdentification: [],
    });
  });

  it('names the problem for text that is not XML, with or without a header', () => {
    expect(malformed(rfc3164('hello world')).problem).toMatch(/not well-formed XML/);
    expect(malformed('just some text').problem).toMatch(/^no syslog header, and not well-formed XML/);
    expect(malformed(rfc5424('<AuditMessage>')).problem).toMatch(/unclosed/);
    expect(malformed(rfc5424('<AuditMessage>&nbsp;</AuditMessage>')).problem).toMatch(/undefined entity/);
    expect(malformed('').problem).toBeDefined();
  });

  it('refuses a billion-laughs bomb quickly, unexpanded', () => {
    const entities = ['<!ENTITY lol0 "lol">'];
    for (let i = 1; i < 10; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
    const bomb = `<?xml version="1.0"?><!DOCTYPE AuditMessage [${entities.join('')}]><AuditMessage><EventIdentification EventActionCode="&lol9;"/>&lol9;</AuditMessage>`;
    const started = performance.now();
    const { audit, problem } = malformed(rfc5424(bomb));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(problem).toMatch(/DOCTYPE/);
    expect(audit.rawMessage).toBe(rfc5424(bomb));
    expect(JSON.stringify(audit)).not.toContain('lollol');
    expect(audit.eventIdentification).toEqual({ eventDateTime: received });
  });

  it('refuses an external entity (XXE) without reading the file', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE AuditMessage [<!ENTITY x SYSTEM "file:///etc/passwd">]><AuditMessage><EventIdentification EventActionCode="E"><EventID code="&x;"/></EventIdentification></AuditMessage>';
    const { audit, problem } = malformed(xxe);
    expect(problem).toMatch(/DOCTYPE/);
    expect(JSON.stringify(audit)).not.toContain('root:');
    expect(audit.activeParticipant).toEqual([]);
  });

  it('refuses 1 MB of deep nesting quickly, without blowing the stack', () => {
    const depth = 1024 * 1024 / 7;
    const deep = `<AuditMessage>${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</AuditMessage>`;
    const started = performance.now();
    const { problem } = malformed(rfc5424(deep));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(problem).toMatch(/nested deeper/);
  });
});
