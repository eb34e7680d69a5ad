/** Pure helpers of the Logs page: the windows offered, following new lines (newest on top), and how a line's details read. */
import type { LogEntry, LogLevelName } from '../../../../service/contracts/logs';

export const LEVELS: { value: LogLevelName; label: string }[] = [
  { value: 'trace', label: 'Trace and above' },
  { value: 'debug', label: 'Debug and above' },
  { value: 'info', label: 'Info and above' },
  { value: 'warn', label: 'Warnings and errors' },
  { value: 'error', label: 'Errors only' },
  { value: 'fatal', label: 'Fatal only' },
];

export const WINDOWS: { value: string; label: string; ms: number }[] = [
  { value: '5m', label: 'Last 5 minutes', ms: 5 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 60 * 60_000 },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 60 * 60_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * 60 * 60_000 },
];

export const PAGE_SIZE = 100;
/** Most lines kept on screen while following; older ones scroll away. */
export const TAIL_KEEP = 1000;
/** How often the page asks for new lines while following. */
export const TAIL_POLL_MS = 2000;

/** A line's identity, to drop the lines a follow-up poll answers again (it asks from the last line's time, inclusive). */
function key(entry: LogEntry): string {
  return `${entry.timestamp}\u0000${entry.level}\u0000${entry.message}\u0000${JSON.stringify(entry.meta)}`;
}

/** The shown lines with newer ones appended: repeats of the last millisecond dropped, at most `keep` kept. */
export function appendNew(shown: readonly LogEntry[], incoming: readonly LogEntry[], keep = TAIL_KEEP): LogEntry[] {
  const last = shown.at(-1)?.timestamp;
  const seen = new Set(shown.filter((e) => e.timestamp === last).map(key));
  const fresh = incoming.filter((e) => (last === undefined || e.timestamp >= last) && !seen.has(key(e)));
  const merged = [...shown, ...fresh];
  return merged.length > keep ? merged.slice(merged.length - keep) : merged;
}

/**
 * The shown lines, newest first, with newer ones (also newest first) put on top: repeats of the newest millisecond
 * dropped, at most `keep` kept, the oldest going first.
 */
export function prependNew(shown: readonly LogEntry[], incoming: readonly LogEntry[], keep = TAIL_KEEP): LogEntry[] {
  return appendNew([...shown].reverse(), [...incoming].reverse(), keep).reverse();
}

/** How long the search box waits after the last key before asking again. */
export const SEARCH_DELAY_MS = 300;

/** The details of a line as short `name=value` pairs for the table (the full JSON is one click away). */
export function metaSummary(meta: Record<string, unknown>): string {
  return Object.entries(meta)
    .filter(([name]) => name !== 'pid')
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
}

export const LEVEL_COLORS: Record<LogLevelName, string> = { trace: 'gray', debug: 'gray', info: 'blue', warn: 'yellow', error: 'red', fatal: 'red' };
