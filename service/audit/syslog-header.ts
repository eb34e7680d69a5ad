/**
 * The syslog header of a received audit message: RFC 5424, or RFC 3164 (BSD), split from the MSG part that carries
 * the audit XML. Written here rather than taken from npm: `syslog-parse` reads RFC 3164 only and stops at the first
 * newline (an audit's XML has many); `nsyslog-parser` loses structured-data values with escaped `"` or `]`, leaves
 * the MSGID and a NILVALUE structured data in the payload, and names facility 10 `authpriv`; `glossy` (OpenHIM's
 * choice) leaves an RFC 3164 TAG in the payload and always gives a year-less time the current year. Pure: the
 * receive time is passed in.
 */
import type { AuditSyslog } from '../contracts/audits.js';

/** Facility names as OpenHIM answers them (index = facility number). */
const FACILITIES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'clock', 'sec', 'ftp', 'ntp', 'audit',
  'alert', 'clock', 'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7',
] as const;
const SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warn', 'notice', 'info', 'debug'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface SyslogMessage {
  syslog: AuditSyslog;
  /** The MSG part (a leading UTF-8 BOM removed): the audit XML. */
  payload: string;
}

const PRI = /^<(\d{1,3})>/;
/** RFC 5424 after the PRI: VERSION TIMESTAMP HOSTNAME APP-NAME PROCID MSGID, then the structured data. */
const HEADER_5424 = /^([1-9]\d?) (\S+) (\S{1,255}) (\S{1,48}) (\S{1,128}) (\S{1,32}) /;
/** RFC 3164's `Mmm dd hh:mm:ss` (day space-padded), or the RFC 3339 time many BSD-style senders put there instead. */
const TIME_3164 = /^([A-Z][a-z]{2}) ( \d|\d\d) (\d\d):(\d\d):(\d\d) /;
const TIME_3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) /;
/** An RFC 3164 TAG with an optional `[pid]`, ended by a colon. */
const TAG = /^([^\s[\]:<]{1,48})(?:\[([^\s\]]{1,128})\])?: ?/;

/**
 * Splits a received message into its syslog header and payload. Returns undefined when it has no syslog PRI at all
 * (a bare XML payload, say); a PRI followed by neither header form still gives the PRI's fields and the rest as
 * payload.
 */
export function parseSyslog(message: string, receivedAt: Date): SyslogMessage | undefined {
  const pri = PRI.exec(message);
  if (pri === null) return undefined;
  const prival = Number(pri[1]);
  if (prival > 191) return undefined;
  const base: AuditSyslog = {
    prival,
    facilityID: prival >> 3,
    severityID: prival & 7,
    facility: FACILITIES[prival >> 3],
    severity: SEVERITIES[prival & 7],
  };
  const rest = message.slice(pri[0].length);
  return parse5424(base, rest) ?? parse3164(base, rest, receivedAt) ?? { syslog: base, payload: rest };
}

function parse5424(base: AuditSyslog, rest: string): SyslogMessage | undefined {
  const header = HEADER_5424.exec(rest);
  if (header === null) return undefined;
  const [, , timestamp, host, appName, pid, msgID] = header as unknown as [string, string, string, string, string, string, string];
  let time: string | undefined;
  if (timestamp !== '-') {
    time = isoTime(timestamp);
    if (time === undefined) return undefined;
  }
  const sdEnd = structuredDataEnd(rest, header[0].length);
  if (sdEnd === undefined) return undefined;
  // MSG is separated from the structured data by one space, and may start with a BOM saying it is UTF-8.
  let payload = rest.slice(sdEnd);
  if (payload.startsWith(' ')) payload = payload.slice(1);
  else if (payload !== '') return undefined;
  return {
    syslog: {
      ...base,
      type: 'RFC5424',
      ...(time === undefined ? {} : { time }),
      ...nil('host', host),
      ...nil('appName', appName),
      ...nil('pid', pid),
      ...nil('msgID', msgID),
    },
    payload: stripBom(payload),
  };
}

/** Where RFC 5424 structured data (NILVALUE or SD-ELEMENTs, values with `\"`, `\\` and `\]` escapes) ends. */
function structuredDataEnd(text: string, start: number): number | undefined {
  if (text[start] === '-') return start + 1;
  let i = start;
  if (text[i] !== '[') return undefined;
  while (text[i] === '[') {
    i++;
    let inValue = false;
    for (;;) {
      const c = text[i];
      if (c === undefined) return undefined;
      if (inValue) {
        if (c === '\\') i++;
        else if (c === '"') inValue = false;
      } else if (c === '"') {
        inValue = true;
      } else if (c === ']') {
        break;
      }
      i++;
    }
    i++;
  }
  return i;
}

function parse3164(base: AuditSyslog, rest: string, receivedAt: Date): SyslogMessage | undefined {
  let time: string | undefined;
  let length: number;
  const bsd = TIME_3164.exec(rest);
  if (bsd !== null) {
    const month = MONTHS.indexOf(bsd[1] as string);
    if (month < 0) return undefined;
    time = yearlessTime(month, Number(bsd[2]), Number(bsd[3]), Number(bsd[4]), Number(bsd[5]), receivedAt);
    length = bsd[0].length;
  } else {
    const iso = TIME_3339.exec(rest);
    if (iso === null) return undefined;
    time = isoTime(iso[1] as string);
    length = iso[0].length;
  }
  if (time === undefined) return undefined;
  let after = rest.slice(length);
  const syslog: AuditSyslog = { ...base, type: 'RFC3164', time };
  // HOSTNAME, unless the sender left it out and the next word is already the TAG (or the payload).
  const word = /^(\S+) /.exec(after);
  if (word !== null && !word[1]!.startsWith('<') && !word[1]!.endsWith(':')) {
    syslog.host = word[1];
    after = after.slice(word[0].length);
  }
  const tag = TAG.exec(after);
  if (tag !== null) {
    syslog.appName = tag[1];
    if (tag[2] !== undefined) syslog.pid = tag[2];
    after = after.slice(tag[0].length);
  }
  return { syslog, payload: stripBom(after) };
}

/**
 * An RFC 3164 time has no year or zone: it is read in the receiver's zone (a clinic's sender and repository share
 * one), in whichever year puts it nearest the receive time, so a message sent on 31 December and received on
 * 1 January keeps its year.
 */
function yearlessTime(month: number, day: number, hour: number, minute: number, second: number, receivedAt: Date): string | undefined {
  if (day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const year = receivedAt.getFullYear();
  let best: Date | undefined;
  for (const candidate of [year - 1, year, year + 1]) {
    const date = new Date(candidate, month, day, hour, minute, second);
    if (date.getMonth() !== month) continue; // 29 February in a year without one
    if (best === undefined || Math.abs(date.getTime() - receivedAt.getTime()) < Math.abs(best.getTime() - receivedAt.getTime())) best = date;
  }
  return best?.toISOString();
}

/** An RFC 3339 time as ISO 8601 in UTC, or undefined when it is not one. */
function isoTime(text: string): string | undefined {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/.test(text)) return undefined;
  const ms = Date.parse(text.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function nil<K extends string>(key: K, value: string): Partial<Record<K, string>> {
  return value === '-' ? {} : ({ [key]: value } as Record<K, string>);
}

function stripBom(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
