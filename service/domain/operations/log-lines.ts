/**
 * Junction's own log lines (pino JSON) as `GET /logs` answers them, and the rules of its query. Pure: the clock is
 * passed in, and reading the files is logs/reader.ts's work.
 */
import type { LogEntry, LogLevelName } from '../../contracts/logs.js';
import type { ValidationProblem } from '../../contracts/api.js';

/** pino's numbers for its level names. */
export const LEVEL_NUMBERS: Readonly<Record<LogLevelName, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const LEVEL_NAMES = Object.keys(LEVEL_NUMBERS) as LogLevelName[];

/** Most lines one call answers; a longer window is read page by page with `start`. */
export const MAX_LOG_LIMIT = 1000;
/** The window when `from` is not given: the last five minutes, as OpenHIM. */
export const DEFAULT_LOG_WINDOW_MS = 5 * 60_000;
/** Longest text `search` may be: a phrase, not a document. */
export const MAX_LOG_SEARCH = 200;
/** The orders `order` names: OpenHIM's (oldest first, the default) and the console's (newest first). */
export const LOG_ORDERS = ['oldest', 'newest'] as const;
export type LogOrder = (typeof LOG_ORDERS)[number];

export interface LogQuery {
  from: number;
  until: number;
  /** Least severe level kept, as pino's number. */
  minLevel: number;
  start: number;
  limit: number;
  /** Newest line first; absent (OpenHIM's order) means oldest first. `start` then counts back from `until`. */
  newestFirst?: true;
  /** Kept lines contain this text (any case) in their message or details; absent keeps every line. */
  search?: string;
}

export interface LogQueryInput {
  from?: string;
  until?: string;
  level?: string;
  start?: number;
  limit?: number;
  order?: string;
  search?: string;
}

/** An instant given as ISO 8601 text or as epoch milliseconds, or null when it is neither. */
function instant(text: string): number | null {
  if (/^\d{1,15}$/.test(text)) return Number(text);
  // Date.parse accepts many loose forms; only ISO 8601 dates (with or without a time) are taken.
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/i.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

/** Reads the query of `GET /logs`, with OpenHIM's defaults; each bad parameter is named in a problem. */
export function parseLogQuery(input: LogQueryInput, now: number): { ok: true; value: LogQuery } | { ok: false; problems: ValidationProblem[] } {
  const problems: ValidationProblem[] = [];
  const time = (key: 'from' | 'until', fallback: number): number => {
    const text = input[key];
    if (text === undefined || text === '') return fallback;
    const ms = instant(text);
    if (ms === null) problems.push({ path: `querystring.${key}`, message: 'must be an ISO 8601 date and time (e.g. 2024-05-01T10:00:00Z) or epoch milliseconds' });
    return ms ?? fallback;
  };
  const until = time('until', now);
  const from = time('from', now - DEFAULT_LOG_WINDOW_MS);
  const levelName = (input.level ?? 'info').toLowerCase();
  const minLevel = LEVEL_NUMBERS[levelName as LogLevelName];
  if (minLevel === undefined) problems.push({ path: 'querystring.level', message: `must be one of ${LEVEL_NAMES.join(', ')}` });
  const order = input.order === undefined || input.order === '' ? 'oldest' : input.order.toLowerCase();
  if (!(LOG_ORDERS as readonly string[]).includes(order)) problems.push({ path: 'querystring.order', message: `must be one of ${LOG_ORDERS.join(', ')}` });
  const search = (input.search ?? '').trim();
  if (search.length > MAX_LOG_SEARCH) problems.push({ path: 'querystring.search', message: `must be at most ${MAX_LOG_SEARCH} characters` });
  if (problems.length === 0 && from > until) problems.push({ path: 'querystring.from', message: 'must not be after until' });
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      from,
      until,
      minLevel: minLevel ?? LEVEL_NUMBERS.info,
      start: input.start ?? 0,
      limit: input.limit ?? MAX_LOG_LIMIT,
      ...(order === 'newest' ? { newestFirst: true as const } : {}),
      ...(search === '' ? {} : { search: search.toLowerCase() }),
    },
  };
}

/**
 * The keys of a raw query string whose values do not decode (`search=%ZZ`): the query parser leaves such text as it
 * came, so a search would look for something the caller never meant; they are refused instead.
 */
export function badlyEscapedKeys(rawQuery: string): string[] {
  const keys: string[] = [];
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const key = at < 0 ? pair : pair.slice(0, at);
    try {
      decodeURIComponent(pair.replace(/\+/g, ' '));
    } catch {
      keys.push(key);
    }
  }
  return keys;
}

/**
 * Whether a line holds the query's search text, in any case, in its message or anywhere in its details (a
 * component, an id, an error's text), as the line would read on the page; every line when there is no search.
 */
export function matchesSearch(entry: LogEntry, search: string | undefined): boolean {
  if (search === undefined) return true;
  if (entry.message.toLowerCase().includes(search)) return true;
  return JSON.stringify(entry.meta).toLowerCase().includes(search);
}

/** The name of a pino level number; a custom number between two takes the less severe name. */
export function levelName(level: number): LogLevelName {
  let name: LogLevelName = 'trace';
  for (const candidate of LEVEL_NAMES) if (LEVEL_NUMBERS[candidate] <= level) name = candidate;
  return name;
}

// pino writes `{"level":N,"time":MS,...` first; reading these without JSON.parse lets a scan skip lines cheaply.
const HEAD = /^\{"level":(\d+),"time":(\d+)/;

/** The level and time at the head of a pino line, or null when the line does not start like one. */
export function lineHead(line: string): { level: number; time: number } | null {
  const match = HEAD.exec(line);
  return match === null ? null : { level: Number(match[1]), time: Number(match[2]) };
}

/** A whole pino line as a log entry, or null when it is not one (a torn line still being written, a foreign line). */
export function parseLogLine(line: string, label = 'junction'): LogEntry | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const { level, time, msg, ...meta } = parsed as Record<string, unknown>;
  if (typeof level !== 'number' || typeof time !== 'number' || !Number.isFinite(time)) return null;
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return null;
  return { message: typeof msg === 'string' ? msg : '', timestamp: date.toISOString(), level: levelName(level), meta, label };
}
