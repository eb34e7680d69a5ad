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
  const read = readXml(trimEnd(xml));
  if ('problem' in read) return read;
  const root = read.root;
  if (!named(root, 'auditMessage')) return { problem: `the XML's root is ${root.name}, not AuditMessage` };

  const event = child(root, 'eventIdentification');
  const eventIdentification: NewAudit['eventIdentification'] = { eventDateTime: eventTime(event && attribute(event, 'eventDateTime'), receivedAt) };
  if (event !== undefined) {
    copy(eventIdentification, event, ['eventOutcomeIndicator', 'eventActionCode']);
    setCode(eventIdentification, 'eventID', child(event, 'eventID'));
    setCode(eventIdentification, 'eventTypeCode', child(event, 'eventTypeCode'));
  }
  const audit: NewAudit = {
    eventIdentification,
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
  const participant: AuditActiveParticipant = {};
  copy(participant, element, ['userID', 'alternativeUserID', 'userName', 'userIsRequestor', 'networkAccessPointID', 'networkAccessPointTypeCode']);
  setCode(participant, 'roleIDCode', child(element, 'roleIDCode'));
  return participant;
}

function participantObject(element: XmlElement): AuditParticipantObject {
  const object: AuditParticipantObject = {};
  copy(object, element, ['participantObjectID', 'participantObjectTypeCode', 'participantObjectTypeCodeRole']);
  setCode(object, 'participantObjectIDTypeCode', child(element, 'participantObjectIDTypeCode'));
  const name = child(element, 'participantObjectName');
  if (name !== undefined) object.participantObjectName = name.text;
  // Base64 as RFC 3881 and DICOM carry it; kept as sent (whitespace included) so the record is what arrived.
  const query = child(element, 'participantObjectQuery');
  if (query !== undefined) object.participantObjectQuery = query.text;
  const details = children(element, 'participantObjectDetail').map((detail) => ({ type: attribute(detail, 'type') ?? '', value: attribute(detail, 'value') ?? detail.text }));
  if (details.length > 0) object.participantObjectDetail = details;
  return object;
}

function auditSource(element: XmlElement): AuditSourceIdentification {
  // DICOM's older form also put a `code` attribute on this element itself; OpenHIM drops it, and so does this.
  const source: AuditSourceIdentification = {};
  copy(source, element, ['auditSourceID', 'auditEnterpriseSiteID']);
  setCode(source, 'auditSourceTypeCode', child(element, 'auditSourceTypeCode'));
  return source;
}

/**
 * Sets `target[key]` to a coded value from RFC 3881 (`code`, `displayName`, `codeSystemName`) or DICOM (`csd-code`,
 * `originalText`) attributes, or the element's text when it carries the code that way (RFC 3881's
 * `AuditSourceTypeCode`). A coded element without any code is left out, the raw message still having it.
 */
function setCode<K extends string>(target: Partial<Record<K, AuditCode>>, key: K, element: XmlElement | undefined): void {
  if (element === undefined) return;
  const text = element.text === '' ? '' : element.text.trim();
  const code = attribute(element, 'csd-code') ?? attribute(element, 'code') ?? (text === '' ? undefined : text);
  if (code === undefined) return;
  const value: AuditCode = { code };
  const displayName = attribute(element, 'originalText') ?? attribute(element, 'displayName');
  if (displayName !== undefined) value.displayName = displayName;
  const codeSystemName = attribute(element, 'codeSystemName');
  if (codeSystemName !== undefined) value.codeSystemName = codeSystemName;
  target[key] = value;
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

/**
 * The element's attribute by its lower-first name (`userID` finds `UserID` or `userID`), read in place: this runs for
 * every element of every message received, so nothing is copied or allocated.
 */
function attribute(element: XmlElement, name: string): string | undefined {
  const own = element.attributes;
  return own[name] ?? own[upperFirst(name)];
}

/** Only ever called with this file's own names, so the cache stays small. */
const upperFirstNames = new Map<string, string>();
function upperFirst(name: string): string {
  let upper = upperFirstNames.get(name);
  if (upper === undefined) {
    upper = name.charAt(0).toUpperCase() + name.slice(1);
    upperFirstNames.set(name, upper);
  }
  return upper;
}

/** Copies the attributes named (lower-first) that the element has onto `target`, in the order named. */
function copy<K extends string>(target: Partial<Record<K, string>>, element: XmlElement, keys: readonly K[]): void {
  for (const key of keys) {
    const value = attribute(element, key);
    if (value !== undefined) target[key] = value;
  }
}

/**
 * Whether an element's name is `name` once its first letter is lower-cased, as OpenHIM matches names. Every name
 * asked for here starts with a lower-case ASCII letter, which only it and its upper case lower-case to, so comparing
 * with both spellings answers the same without making a string per element.
 */
function named(element: XmlElement, name: string): boolean {
  return element.name === name || element.name === upperFirst(name);
}

function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => named(c, name));
}

function children(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => named(c, name));
}

/** Without trailing whitespace and NULs; the string itself when it has none (nearly always), with no regex run. */
function trimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && isSpaceOrNul(text.charCodeAt(end - 1))) end--;
  if (end === text.length) return text;
  // Rare: the regex keeps exactly what `\s` counts as whitespace.
  return text.replace(/[\s\0]+$/, '');
}

/** A NUL or a character `\s` matches (a cheap test first for the ASCII ones, the regex for the rest). */
function isSpaceOrNul(code: number): boolean {
  if (code === 0 || code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  return code > 0x7f && /\s/.test(String.fromCharCode(code));
}
