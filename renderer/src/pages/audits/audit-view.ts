/** How an audit record reads on the console: codes in words, the row's user and object, and the raw message's parts. Pure. */
import type { Audit, AuditActiveParticipant, AuditCode, AuditParticipantObject } from '../../../../service/contracts/audits';
import { ACTIONS, OUTCOMES } from './filters';

/** A value in words with its code, `Success (0)`, or the code alone when it has no name; a dash when absent. */
function named(value: string | undefined, names: Record<string, string>): string {
  if (value === undefined || value === '') return '–';
  return Object.hasOwn(names, value) ? `${names[value]} (${value})` : value;
}

export function outcomeText(value: string | undefined): string {
  return named(value, OUTCOMES);
}

export function actionText(value: string | undefined): string {
  return named(value, ACTIONS);
}

/** A code as `Login (110122)`, or the code alone; a dash when absent. */
export function codeText(code: AuditCode | undefined): string {
  if (code === undefined || code.code === '') return '–';
  return code.displayName === undefined || code.displayName === '' || code.displayName === code.code ? code.code : `${code.displayName} (${code.code})`;
}

/** A code for a filter list: its name and code, and its code system when it has one. */
export function codeOption(code: AuditCode): { value: string; label: string } {
  const system = code.codeSystemName === undefined || code.codeSystemName === '' ? '' : ` · ${code.codeSystemName}`;
  return { value: code.code, label: `${codeText(code)}${system}` };
}

/** A message that did not parse as an audit is kept raw, with no event ID (one posted as JSON always has one). */
export function isMalformed(audit: Audit): boolean {
  return audit.eventIdentification.eventID === undefined;
}

/** The participant that made the request (UserIsRequestor true), if any says so. */
export function requestor(participants: readonly AuditActiveParticipant[] | undefined): AuditActiveParticipant | undefined {
  return participants?.find((p) => p.userIsRequestor?.toLowerCase() === 'true');
}

/** The patient among the objects (type 1 person, role 1 patient), else the first object. */
export function mainObject(objects: readonly AuditParticipantObject[] | undefined): AuditParticipantObject | undefined {
  if (objects === undefined) return undefined;
  return objects.find((o) => o.participantObjectTypeCode === '1' && o.participantObjectTypeCodeRole === '1') ?? objects[0];
}

export interface RawMessageParts {
  /** What precedes the XML: the syslog header (`<85>1 2026-… host app pid msgid - `), trimmed. */
  header: string;
  /** The XML (or whatever followed the header when it holds no XML). */
  body: string;
}

/**
 * A raw message split at the start of its XML: the first `<` that opens a declaration, comment or element (the
 * syslog PRI `<85>` is a digit, so it never matches).
 */
export function splitRawMessage(raw: string): RawMessageParts {
  const start = raw.search(/<[?!A-Za-z_]/);
  if (start < 0) return { header: '', body: raw };
  return { header: raw.slice(0, start).trim(), body: raw.slice(start) };
}

/** A participant object's query (base64, as RFC 3881 carries it) as text, or null when it is not base64 of UTF-8. */
export function decodeQuery(query: string | undefined): string | null {
  if (query === undefined) return null;
  const compact = query.replace(/\s+/g, '');
  if (compact === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 !== 0) return null;
  try {
    const binary = atob(compact);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    // Control characters other than tabs and line breaks mean binary, not a readable query.
    return Array.from(text).some((c) => c.charCodeAt(0) < 0x20 && !'\t\n\r'.includes(c)) ? null : text;
  } catch {
    return null;
  }
}
