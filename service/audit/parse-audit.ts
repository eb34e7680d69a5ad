/**
 * A received audit message (syslog header and RFC 3881 or DICOM PS3.15 A.5 XML) in OpenHIM's audit model. Names are
 * matched as OpenHIM does, with their first letter lower-cased, attributes and child elements alike; DICOM's
 * `csd-code` and `originalText` become `code` and `displayName`; every value stays the text that was sent. A message
 * that is not an audit is still kept, raw, as OpenHIM keeps it. Pure: the receive time is passed in.
 */
import type {
  AuditActiveParticipant,
  AuditCode,
  AuditParticipantObject,
  AuditSourceIdentification,
  AuditSyslog,
} from '../contracts/audits.js';
import type { NewAudit } from '../storage/audits.js';
import { readXml } from './audit-xml.js';
import type { XmlElement } from './audit-xml.js';
import { parseSyslog } from './syslog-header.js';

export interface ParsedAuditMessage {
  audit: NewAudit;
  /** Why the message was stored raw instead of as an audit; absent when it was an audit message. */
  problem?: string;
}

/** Parses one whole received message; never throws. */
export function parseAuditMessage(message: string, receivedAt: Date): ParsedAuditMessage {
  const header = parseSyslog(message, receivedAt);
  // A message without a syslog header is still tried as XML: some senders send the audit alone.
  const payload = header === undefined ? message : header.payload;
  const parsed = parseAuditXml(payload, receivedAt);
  if ('problem' in parsed) {
    return { audit: malformedAudit(message, header?.syslog, receivedAt), problem: header === undefined ? `no syslog header, and ${parsed.problem}` : parsed.problem };
  }
  return { audit: { rawMessage: message, ...(header === undefined ? {} : { syslog: header.syslog }), ...parsed.audit } };
}

/** An audit message's XML alone in the audit model (without `rawMessage` and `syslog`), or why it is not one. */
export function parseAuditXml(xml: string, receivedAt: Date): { audit: NewAudit } | { problem: string } {
  // Trailing whitespace and NULs are what some senders' framing leaves behind, not part of the XML.
  const read = readXml(xml.replace(/[\s\0]+$/, ''));
  if ('problem' in read) return read;
  const root = read.root;
  if (lowerFirst(root.name) !== 'auditMessage') return { problem: `the XML's root is ${root.name}, not AuditMessage` };

  const event = child(root, 'eventIdentification');
  const eventAttrs: Attributes = event === undefined ? () => undefined : attributes(event);
  const audit: NewAudit = {
    eventIdentification: {
      eventDateTime: eventTime(eventAttrs('eventDateTime'), receivedAt),
      ...pick(eventAttrs, ['eventOutcomeIndicator', 'eventActionCode']),
      ...codeField('eventID', event && child(event, 'eventID')),
      ...codeField('eventTypeCode', event && child(event, 'eventTypeCode')),
    },
    activeParticipant: children(root, 'activeParticipant').map(activeParticipant),
    participantObjectIdentification: children(root, 'participantObjectIdentification').map(participantObject),
  };
  const source = child(root, 'auditSourceIdentification');
  if (source !== undefined) audit.auditSourceIdentification = auditSource(source);
  return { audit };
}

/** What is kept of a message that is not an audit: the raw text, its header when that parsed, and the receive time. */
export function malformedAudit(rawMessage: string, syslog: AuditSyslog | undefined, receivedAt: Date): NewAudit {
  return {
    rawMessage,
    ...(syslog === undefined ? {} : { syslog }),
    eventIdentification: { eventDateTime: receivedAt },
    activeParticipant: [],
    participantObjectIdentification: [],
  };
}

function activeParticipant(element: XmlElement): AuditActiveParticipant {
  const attrs = attributes(element);
  return {
    ...pick(attrs, ['userID', 'alternativeUserID', 'userName', 'userIsRequestor', 'networkAccessPointID', 'networkAccessPointTypeCode']),
    ...codeField('roleIDCode', child(element, 'roleIDCode')),
  };
}

function participantObject(element: XmlElement): AuditParticipantObject {
  const attrs = attributes(element);
  const object: AuditParticipantObject = {
    ...pick(attrs, ['participantObjectID', 'participantObjectTypeCode', 'participantObjectTypeCodeRole']),
    ...codeField('participantObjectIDTypeCode', child(element, 'participantObjectIDTypeCode')),
  };
  const name = child(element, 'participantObjectName');
  if (name !== undefined) object.participantObjectName = name.text;
  // Base64 as RFC 3881 and DICOM carry it; kept as sent (whitespace included) so the record is what arrived.
  const query = child(element, 'participantObjectQuery');
  if (query !== undefined) object.participantObjectQuery = query.text;
  const details = children(element, 'participantObjectDetail').map((detail) => {
    const detailAttrs = attributes(detail);
    return { type: detailAttrs('type') ?? '', value: detailAttrs('value') ?? detail.text };
  });
  if (details.length > 0) object.participantObjectDetail = details;
  return object;
}

function auditSource(element: XmlElement): AuditSourceIdentification {
  // DICOM's older form also put a `code` attribute on this element itself; OpenHIM drops it, and so does this.
  return {
    ...pick(attributes(element), ['auditSourceID', 'auditEnterpriseSiteID']),
    ...codeField('auditSourceTypeCode', child(element, 'auditSourceTypeCode')),
  };
}

/**
 * A coded value from RFC 3881 (`code`, `displayName`, `codeSystemName`) or DICOM (`csd-code`, `originalText`)
 * attributes, or the element's text when it carries the code that way (RFC 3881's `AuditSourceTypeCode`). A coded
 * element without any code is left out, the raw message still having it.
 */
function codeField<K extends string>(key: K, element: XmlElement | undefined): Partial<Record<K, AuditCode>> {
  if (element === undefined) return {};
  const attrs = attributes(element);
  const code = attrs('csd-code') ?? attrs('code') ?? (element.text.trim() === '' ? undefined : element.text.trim());
  if (code === undefined) return {};
  const value: AuditCode = { code };
  const displayName = attrs('originalText') ?? attrs('displayName');
  if (displayName !== undefined) value.displayName = displayName;
  const codeSystemName = attrs('codeSystemName');
  if (codeSystemName !== undefined) value.codeSystemName = codeSystemName;
  return { [key]: value } as Record<K, AuditCode>;
}

const ISO_8601 = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d(?::?\d\d)?)?$/;

/** The event's time (ISO 8601, as xs:dateTime sends it); missing or unreadable, the receive time. */
function eventTime(text: string | undefined, receivedAt: Date): Date {
  const trimmed = text?.trim();
  if (trimmed === undefined || !ISO_8601.test(trimmed)) return receivedAt;
  // Date.parse wants at most three fraction digits, a dot, and a zone with a colon.
  const normal = trimmed
    .replace(/[.,](\d{1,3})\d*/, '.$1')
    .replace(/([+-]\d\d)(\d\d)$/, '$1:$2')
    .replace(/([+-]\d\d)$/, '$1:00');
  const ms = Date.parse(normal);
  return Number.isNaN(ms) ? receivedAt : new Date(ms);
}

type Attributes = (name: string) => string | undefined;

/**
 * The element's attributes read by their lower-first names (`userID` finds `UserID` or `userID`), without copying
 * them: this runs for every element of every message received.
 */
function attributes(element: XmlElement): Attributes {
  const own = element.attributes;
  return (name) => own[name] ?? own[upperFirst(name)];
}

/** Only ever called with this file's own attribute names, so the cache stays small. */
const upperFirstNames = new Map<string, string>();
function upperFirst(name: string): string {
  let upper = upperFirstNames.get(name);
  if (upper === undefined) {
    upper = name.charAt(0).toUpperCase() + name.slice(1);
    upperFirstNames.set(name, upper);
  }
  return upper;
}

function pick<K extends string>(attrs: Attributes, keys: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = attrs(key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => lowerFirst(c.name) === name);
}

function children(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => lowerFirst(c.name) === name);
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}
