/**
 * The wire form of the audit events Junction sends to another repository: an RFC 3881 `AuditMessage` (with the DICOM
 * code attributes OpenHIM sends, so RFC 3881 and DICOM PS3.15 readers both find the codes) in an RFC 5424 syslog
 * message, framed for TCP and TLS by octet counting (RFC 5425/6587) with the UTF-8 byte length.
 *
 * The XML is built as a DOM and serialised by @xmldom/xmldom (already a dependency): its serialiser escapes `<&>"` in
 * text and attributes and line breaks in attributes, so no value can break the document. It does not refuse
 * characters XML 1.0 forbids (controls, lone surrogates); `xmlText` replaces those first.
 */
import { DOMImplementation, XMLSerializer } from '@xmldom/xmldom';
import type { Document, Element } from '@xmldom/xmldom';
import type { NewAudit } from '../storage/audits.js';

type AuditCode = NonNullable<NewAudit['eventIdentification']['eventID']>;

/** RFC 5424 facility 10, "security/authorization messages", as IHE ATNA (ITI-20) asks. */
const FACILITY_AUTHPRIV = 10;
/** Severity 5 (notice) for a success, as OpenHIM sends every event; 4 (warning) for a failed outcome. */
const SEVERITY_NOTICE = 5;
const SEVERITY_WARNING = 4;
export const APP_NAME = 'junction';
export const MSG_ID = 'IHE+RFC-3881';
/** The largest UDP payload over IPv4 (65,535 less the IP and UDP headers); a longer message cannot go by UDP. */
export const MAX_UDP_BYTES = 65_507;

export interface SyslogHeader {
  /** This machine's name (RFC 5424 HOSTNAME). */
  hostname: string;
  /** The sending process (RFC 5424 PROCID). */
  procId: string | number;
  /** The time written in the header: when the message was made. */
  at: Date;
}

/** The PRI of an event: facility 10; notice when it succeeded, warning when its outcome is a failure. */
export function priorityOf(audit: NewAudit): number {
  const outcome = audit.eventIdentification.eventOutcomeIndicator;
  const failed = outcome !== undefined && outcome !== '' && outcome !== '0';
  return FACILITY_AUTHPRIV * 8 + (failed ? SEVERITY_WARNING : SEVERITY_NOTICE);
}

/** One audit event as an RFC 5424 syslog message: header, no structured data, then the XML. */
export function syslogMessage(audit: NewAudit, header: SyslogHeader): string {
  const fields = [
    `<${priorityOf(audit)}>1`,
    header.at.toISOString(),
    headerField(header.hostname, 255),
    APP_NAME,
    headerField(String(header.procId), 128),
    MSG_ID,
    '-',
  ];
  return `${fields.join(' ')} ${auditXml(audit)}`;
}

/** Octet-counting framing (RFC 5425 / 6587): the message's UTF-8 byte length, a space, then the message. */
export function frameOctetCounted(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}

/**
 * An RFC 5424 header field: printable US-ASCII without spaces, at most `max` characters; `-` (the nil value) when
 * nothing is left. A host name with other characters would otherwise shift every later field.
 */
function headerField(value: string, max: number): string {
  const cleaned = value.replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return cleaned === '' ? '-' : cleaned;
}

/** The RFC 3881 `AuditMessage` XML of one event, with an XML declaration. */
export function auditXml(audit: NewAudit): string {
  const doc = new DOMImplementation().createDocument(null, 'AuditMessage', null);
  const root = doc.documentElement;
  if (root === null) throw new Error('could not create the AuditMessage document');
  const event = audit.eventIdentification;
  const identification = child(doc, root, 'EventIdentification', {
    EventActionCode: event.eventActionCode,
    EventDateTime: event.eventDateTime.toISOString(),
    EventOutcomeIndicator: event.eventOutcomeIndicator,
  });
  code(doc, identification, 'EventID', event.eventID);
  code(doc, identification, 'EventTypeCode', event.eventTypeCode);
  for (const participant of audit.activeParticipant) {
    const element = child(doc, root, 'ActiveParticipant', {
      UserID: participant.userID,
      AlternativeUserID: participant.alternativeUserID,
      UserName: participant.userName,
      UserIsRequestor: participant.userIsRequestor,
      NetworkAccessPointID: participant.networkAccessPointID,
      NetworkAccessPointTypeCode: participant.networkAccessPointTypeCode,
    });
    code(doc, element, 'RoleIDCode', participant.roleIDCode);
  }
  const source = audit.auditSourceIdentification;
  if (source !== undefined) {
    const element = child(doc, root, 'AuditSourceIdentification', { AuditEnterpriseSiteID: source.auditEnterpriseSiteID, AuditSourceID: source.auditSourceID });
    code(doc, element, 'AuditSourceTypeCode', source.auditSourceTypeCode);
  }
  for (const object of audit.participantObjectIdentification) {
    const element = child(doc, root, 'ParticipantObjectIdentification', {
      ParticipantObjectID: object.participantObjectID,
      ParticipantObjectTypeCode: object.participantObjectTypeCode,
      ParticipantObjectTypeCodeRole: object.participantObjectTypeCodeRole,
    });
    code(doc, element, 'ParticipantObjectIDTypeCode', object.participantObjectIDTypeCode);
    // RFC 3881 and DICOM allow a name or a query, not both; the name is the one a reader shows.
    if (object.participantObjectName !== undefined) child(doc, element, 'ParticipantObjectName', {}, object.participantObjectName);
    else if (object.participantObjectQuery !== undefined) child(doc, element, 'ParticipantObjectQuery', {}, object.participantObjectQuery);
    for (const detail of object.participantObjectDetail ?? []) {
      // The value is xs:base64Binary in both schemas (OpenHIM's sender encodes it too).
      child(doc, element, 'ParticipantObjectDetail', { type: detail.type, value: Buffer.from(detail.value, 'utf8').toString('base64') });
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>${new XMLSerializer().serializeToString(doc)}`;
}

/** Appends an element with the attributes that have a value (in the given order) and optional text. */
function child(doc: Document, parent: Element, name: string, attributes: Record<string, string | undefined>, text?: string): Element {
  const element = doc.createElement(name);
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) element.setAttribute(key, xmlText(value));
  if (text !== undefined) element.appendChild(doc.createTextNode(xmlText(text)));
  parent.appendChild(element);
  return element;
}

/** A coded value with DICOM's `csd-code` and `originalText` and RFC 3881's `displayName`, as OpenHIM sends them. */
function code(doc: Document, parent: Element, name: string, value: AuditCode | undefined): void {
  if (value === undefined) return;
  child(doc, parent, name, {
    'csd-code': value.code,
    codeSystemName: value.codeSystemName,
    originalText: value.displayName,
    displayName: value.displayName,
  });
}

/** Text with the characters XML 1.0 cannot carry (controls other than tab and line breaks, lone surrogates) replaced by U+FFFD. */
export function xmlText(value: string): string {
  return value.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}
