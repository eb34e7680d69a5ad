/**
 * Refusals (issue 35): what kind of refusal an answer or a connection's end is, how repeats fold into one row per
 * minute, and the checks of the list's query. Pure.
 */
import type { RefusalKind } from '../../contracts/refusals.js';
import { REFUSAL_KINDS } from '../../contracts/refusals.js';
import type { RefusalReason as ConnectionRefusal } from '../access/admission.js';

const MINUTE_MS = 60_000;

/** The error codes a transaction port or a message path answers a refused sender with, and the kind each records. */
const KIND_OF_CODE: Readonly<Record<string, RefusalKind>> = {
  CHANNEL_NOT_FOUND: 'no_channel',
  CLIENT_UNAUTHENTICATED: 'unauthenticated',
  CLIENT_NOT_AUTHORISED: 'not_allowed',
  CLIENT_THROTTLED: 'throttled',
  BODY_TOO_LARGE: 'too_large',
  STORE_UNAVAILABLE: 'store_unavailable',
};

/** The kind of refusal an error code is, or undefined when the code is Junction's own failure, not a refusal. */
export function refusalKindOfCode(code: string): RefusalKind | undefined {
  return KIND_OF_CODE[code];
}

/** The kind of a connection refused or cut off by the connection admission (transports/admission.ts). */
export function refusalKindOfConnection(reason: ConnectionRefusal): RefusalKind {
  switch (reason) {
    case 'per_address':
    case 'total':
    case 'listener_full':
      return 'connection_limit';
    case 'silent':
    case 'head_timeout':
    case 'frame_timeout':
    case 'handshake_timeout':
      return 'timeout';
    case 'too_large':
      return 'too_large';
    case 'not_hl7':
    case 'bad_frame':
      return 'malformed';
  }
}

export function isRefusalKind(value: string): value is RefusalKind {
  return (REFUSAL_KINDS as readonly string[]).includes(value);
}

/** The start of the minute `ms` falls in: the rows fold per minute. */
export function minuteOf(ms: number): number {
  return ms - (((ms % MINUTE_MS) + MINUTE_MS) % MINUTE_MS);
}

/** The channel a listener belongs to, by the name in its label (`channel:<name>`), or undefined for a port. */
export function channelOfListener(listener: string): string | undefined {
  return listener.startsWith('channel:') ? listener.slice('channel:'.length) : undefined;
}

/** What one refusal says, before it is folded. */
export interface RefusalEvent {
  reason: RefusalKind;
  listener: string;
  port?: number | undefined;
  channelId?: string | undefined;
  channelName?: string | undefined;
  address: string;
  client?: string | undefined;
  detail?: string | undefined;
}

/** Where a refused request or message came in, as a transport or the pipeline knows it. */
export interface RefusedAt {
  listener: string;
  port?: number | undefined;
  address: string;
  channelId?: string | undefined;
  channelName?: string | undefined;
  client?: string | undefined;
}

/** Where refusals are reported (refused/recorder.ts): never throws, never waits, so a refusal site need not care. */
export interface RefusalSink {
  /** A refusal by the error code its sender was answered; codes that are not refusals are ignored. */
  refusedWith(error: { code: string; message: string }, at: RefusedAt): void;
}

/** The key repeats fold under within one minute: listener, channel (id or name), address and reason. */
export function foldKey(minute: number, listener: string, channel: string, address: string, reason: RefusalKind): string {
  return `${String(minute)}\u0000${listener}\u0000${channel}\u0000${address}\u0000${reason}`;
}

/** Longest detail kept: one sample sentence, not a body. */
export const MAX_DETAIL_CHARS = 300;

/** A detail as stored: one line, bounded. */
export function storedDetail(detail: string | undefined): string {
  if (detail === undefined) return '';
  let line = '';
  // Control characters (a sender's bytes may be quoted) become spaces: the detail is one line of text.
  for (const ch of detail.slice(0, MAX_DETAIL_CHARS + 1)) line += ch.charCodeAt(0) < 0x20 || ch === '\u007f' ? ' ' : ch;
  line = line.trim();
  return line.length <= MAX_DETAIL_CHARS ? line : `${line.slice(0, MAX_DETAIL_CHARS - 1)}…`;
}

/** The list's query after its schema: times as ISO text, lists as comma-separated text. */
export interface RefusalQueryInput {
  from?: string;
  to?: string;
  channelID?: string;
  reason?: string;
  address?: string;
  filterLimit?: number;
  filterPage?: number;
}

export interface RefusalQuery {
  from?: number;
  to?: number;
  channelIds?: string[];
  reasons?: RefusalKind[];
  address?: string;
  limit: number;
  page: number;
}

export const DEFAULT_REFUSAL_PAGE = 50;
export const MAX_REFUSAL_PAGE = 1000;

/** The query checked: every problem named, or the query. */
export function parseRefusalQuery(input: RefusalQueryInput): { ok: true; query: RefusalQuery } | { ok: false; problems: { path: string; message: string }[] } {
  const problems: { path: string; message: string }[] = [];
  const time = (key: 'from' | 'to'): number | undefined => {
    const text = input[key];
    if (text === undefined || text === '') return undefined;
    const ms = Date.parse(text);
    if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(ms)) {
      problems.push({ path: `/${key}`, message: 'must be an ISO 8601 date and time, such as 2026-12-03T08:00:00Z' });
      return undefined;
    }
    return ms;
  };
  const from = time('from');
  const to = time('to');
  if (from !== undefined && to !== undefined && from > to) problems.push({ path: '/to', message: 'must not be before from' });
  const list = (text: string | undefined): string[] | undefined => {
    if (text === undefined || text.trim() === '') return undefined;
    return [...new Set(text.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
  };
  const channelIds = list(input.channelID);
  for (const id of channelIds ?? []) if (!/^[0-9a-f]{24}$/i.test(id)) problems.push({ path: '/channelID', message: `${id.slice(0, 40)} is not a channel id (24 hexadecimal characters)` });
  const reasonsText = list(input.reason);
  const reasons: RefusalKind[] = [];
  for (const reason of reasonsText ?? []) {
    if (isRefusalKind(reason)) reasons.push(reason);
    else problems.push({ path: '/reason', message: `${reason.slice(0, 40)} is not a refusal reason; one of ${REFUSAL_KINDS.join(', ')}` });
  }
  const address = input.address?.trim();
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    query: {
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
      ...(channelIds === undefined ? {} : { channelIds }),
      ...(reasonsText === undefined ? {} : { reasons }),
      ...(address === undefined || address === '' ? {} : { address }),
      limit: input.filterLimit ?? DEFAULT_REFUSAL_PAGE,
      page: input.filterPage ?? 0,
    },
  };
}
