/**
 * The time windows the alert job evaluates (issue 16 part 4): consecutive runs cover time exactly once. Pure; the
 * caller passes `now` and keeps the last window's end between runs (it must survive restarts, or the first run after
 * one starts afresh).
 *
 * A window is half-open, `[from, to)`: a transaction counts in it when `from <= t < to`, so a transaction exactly on
 * a boundary belongs to the later window only. Which instant `t` is (the transaction's end, when its final status is
 * known) is the caller's choice; it must be one that is written before the transaction is readable, or a run could
 * read past a transaction still being stored and the next window would start after it.
 */

/** `[from, to)`: from inclusive, to exclusive. */
export interface AlertWindow {
  from: Date;
  to: Date;
}

/** The window of one run, and the time it gave up on after a long outage (the caller logs it). */
export interface NextWindow extends AlertWindow {
  /** Set when the gap since the last run was longer than the catch-up limit: this span is not evaluated. */
  skipped?: AlertWindow;
}

/**
 * The longest span one run evaluates after downtime: a day. Longer outages lose their older part (reported in
 * `skipped`): a message about day-old failures is still useful, one about last week's would be noise, and a run's cost
 * grows with the span it reads.
 */
export const MAX_CATCH_UP_MINUTES = 24 * 60;

const MINUTE_MS = 60_000;

/**
 * The window a run at `now` evaluates: from the previous window's end (or `pollPeriodMinutes` back on the first run)
 * to `now`, so there is no gap and no overlap. After downtime it covers the whole gap, up to MAX_CATCH_UP_MINUTES.
 * When the clock has gone back behind the last end the window is empty (`from` = `to` = the last end): nothing is
 * read twice, and the next run resumes from that end.
 */
export function nextWindow(lastEnd: Date | undefined, now: Date, pollPeriodMinutes: number): NextWindow {
  if (!Number.isFinite(pollPeriodMinutes) || pollPeriodMinutes <= 0) throw new RangeError(`pollPeriodMinutes must be a positive number, not ${String(pollPeriodMinutes)}`);
  const nowMs = now.getTime();
  const lastMs = lastEnd?.getTime();
  if (lastMs === undefined || Number.isNaN(lastMs)) {
    return { from: new Date(nowMs - Math.min(pollPeriodMinutes, MAX_CATCH_UP_MINUTES) * MINUTE_MS), to: new Date(nowMs) };
  }
  if (lastMs >= nowMs) return { from: new Date(lastMs), to: new Date(lastMs) };
  const earliest = nowMs - MAX_CATCH_UP_MINUTES * MINUTE_MS;
  if (lastMs < earliest) {
    return { from: new Date(earliest), to: new Date(nowMs), skipped: { from: new Date(lastMs), to: new Date(earliest) } };
  }
  return { from: new Date(lastMs), to: new Date(nowMs) };
}

/** True when a window covers no time (nothing to read; keep the last end as it is). */
export function isEmptyWindow(window: AlertWindow): boolean {
  return window.to.getTime() <= window.from.getTime();
}

/** True when `at` falls in the window (`from` inclusive, `to` exclusive). */
export function inWindow(window: AlertWindow, at: Date): boolean {
  const t = at.getTime();
  return t >= window.from.getTime() && t < window.to.getTime();
}

/** True when `timeZone` is an IANA zone name (or `UTC`) this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock fields of an instant in a zone. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date and time of `at` in `timeZone` (throws a RangeError for an unknown zone). */
export function wallTime(at: Date, timeZone: string): WallTime {
  let format = wallFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    wallFormats.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return { year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0, hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0 };
}

// How far the zone's wall clock is ahead of UTC at an instant, in milliseconds.
function zoneOffsetMs(at: Date, timeZone: string): number {
  const wall = wallTime(at, timeZone);
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return wallAsUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The first instant of the calendar day that contains `at` in `timeZone`. On a day whose midnight a daylight-saving
 * change skips, the first instant that exists.
 */
export function startOfDay(at: Date, timeZone: string): Date {
  const wall = wallTime(at, timeZone);
  const midnightAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day);
  // The offset at midnight can differ from the offset now (a change during the night): correct once more.
  let guess = midnightAsUtc - zoneOffsetMs(at, timeZone);
  guess = midnightAsUtc - zoneOffsetMs(new Date(guess), timeZone);
  const check = wallTime(new Date(guess), timeZone);
  // The guess fell on the previous day's wall clock (a change at midnight): move on to where that day's clock ends.
  if (check.day !== wall.day) guess += ((24 - check.hour) * 3600 - check.minute * 60 - check.second) * 1000;
  return new Date(guess);
}
