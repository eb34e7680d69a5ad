/**
 * Metric periods as time buckets in an explicit IANA time zone: where a bucket starts, where the next one starts,
 * which buckets a range holds, which stored buckets can be rolled up into a coarser period, how metrics queries are
 * read, and when minute buckets expire. Pure: no clock, every instant is passed in.
 *
 * OpenHIM cuts buckets in the server's local time and serves week, month and year as day buckets; here every period
 * is a real bucket in the zone the caller names (weeks start on Monday, ISO 8601), and days may be 23 or 25 hours.
 * luxon does the calendar work wherever a clock change is involved; the common case (no change between an instant and
 * its bucket's start) floors the wall clock with the zone's offset, which is exact there and over ten times faster
 * (a year of hour buckets in about 15 ms), and the tests hold it equal to luxon in zones with every kind of change.
 */
import { DateTime, FixedOffsetZone, Info } from 'luxon';
import type { Zone } from 'luxon';
import type { ValidationProblem } from '../../contracts/api.js';
import { METRIC_PERIODS } from '../../contracts/vocabulary.js';
import type { MetricPeriod } from '../../contracts/vocabulary.js';

// The list is the wire's (contracts/vocabulary.ts); it is offered here too, beside the rules that use it.
export { METRIC_PERIODS };
export type { MetricPeriod };

/**
 * The periods kept in storage. Week, month and year are rolled up from day buckets of the same zone when read: a
 * year is at most 366 day rows per channel, and storing them too would add three writes to every completion for no
 * gain in what a query can answer.
 */
export const STORED_PERIODS = ['minute', 'hour', 'day'] as const;
export type StoredPeriod = (typeof STORED_PERIODS)[number];

/** Most buckets one time-series query may span: a week of minutes is already more. */
export const MAX_QUERY_BUCKETS = 10_000;

/** True for the six period names. */
export function isMetricPeriod(value: unknown): value is MetricPeriod {
  return typeof value === 'string' && (METRIC_PERIODS as readonly string[]).includes(value);
}

/** How a period compares to another: negative when `a` is finer than `b`. */
export function comparePeriods(a: MetricPeriod, b: MetricPeriod): number {
  return METRIC_PERIODS.indexOf(a) - METRIC_PERIODS.indexOf(b);
}

/**
 * The canonical spelling of an IANA time zone ("europe/london" → "Europe/London", "US/Pacific" →
 * "America/Los_Angeles"), or null when the name is not one this runtime knows. Whether two zones' buckets line up is
 * decided from their boundaries, never from their names.
 */
export function canonicalTimeZone(name: string): string | null {
  if (name.trim() === '' || name !== name.trim()) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function inZone(at: Date, timeZone: string): DateTime {
  const local = DateTime.fromJSDate(at, { zone: timeZone });
  if (!local.isValid) throw new RangeError(`not a usable instant and time zone: ${at.toString()} in ${timeZone} (${local.invalidExplanation ?? local.invalidReason ?? 'invalid'})`);
  return local;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

// A memo of each zone's offset per UTC day, when it is the same at both ends of that day (null when it changes
// within it). Time-zone rules do not change while the process runs, so this is a cache of a pure function: it turns
// a year of hour buckets from seconds of calendar arithmetic into milliseconds.
const dayOffsets = new Map<string, Map<number, number | null>>();
const zones = new Map<string, Zone>();

function zoneOf(timeZone: string): Zone {
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    zone = Info.normalizeZone(timeZone);
    if (!zone.isValid) throw new RangeError(`not a time zone: ${timeZone}`);
    if (zones.size > 1000) zones.clear();
    zones.set(timeZone, zone);
  }
  return zone;
}

/** Milliseconds the zone is ahead of UTC at `t`. */
function offsetAt(timeZone: string, t: number): number {
  const zone = zoneOf(timeZone);
  let days = dayOffsets.get(timeZone);
  if (days === undefined) {
    days = new Map();
    if (dayOffsets.size > 1000) dayOffsets.clear();
    dayOffsets.set(timeZone, days);
  }
  const day = Math.floor(t / DAY);
  let known = days.get(day);
  if (known === undefined) {
    const first = zone.offset(day * DAY);
    known = first === zone.offset(day * DAY + DAY - 1) ? first : null;
    if (days.size > 100_000) days.clear();
    days.set(day, known);
  }
  return (known ?? zone.offset(t)) * MINUTE;
}

const mod = (a: number, b: number): number => ((a % b) + b) % b;

// The start of the minute, hour or day holding t: the wall clock floored, taken back to UTC with t's offset. Right
// whenever the offset at that start is t's own; otherwise an offset change lies in between (DST on this day, or a
// day with no midnight) and luxon does the calendar work.
function clockStart(t: number, unit: number, period: 'minute' | 'hour' | 'day', timeZone: string): number {
  const offset = offsetAt(timeZone, t);
  const start = t - mod(t + offset, unit);
  if (offsetAt(timeZone, start) !== offset) return inZone(new Date(t), timeZone).startOf(period).toMillis();
  if (period === 'day') {
    // Where clocks go back at midnight (Havana) the date has two midnights and began at the first; luxon keeps the
    // offset it was given and answers the second, which would split the date into two buckets.
    const before = offsetAt(timeZone, start - 1);
    const first = start - (before - offset);
    if (before > offset && offsetAt(timeZone, first) === before) return first;
  }
  return start;
}

// The start of the day holding the local date `localMidnight` (ms of that date's 00:00 read as UTC), found from its
// noon, which every offset keeps on the same date.
function dayOfLocalDate(localMidnight: number, offset: number, timeZone: string): number {
  return clockStart(localMidnight + 12 * HOUR - offset, DAY, 'day', timeZone);
}

// Date.UTC reads years 0 to 99 as 1900 to 1999.
function utcDate(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  return date.getTime();
}

function startMs(t: number, period: MetricPeriod, timeZone: string): number {
  switch (period) {
    case 'minute':
      return clockStart(t, MINUTE, 'minute', timeZone);
    case 'hour':
      return clockStart(t, HOUR, 'hour', timeZone);
    case 'day':
      return clockStart(t, DAY, 'day', timeZone);
    default: {
      const offset = offsetAt(timeZone, t);
      const local = new Date(t + offset);
      const year = local.getUTCFullYear();
      if (period === 'year') return dayOfLocalDate(utcDate(year, 0, 1), offset, timeZone);
      if (period === 'month') return dayOfLocalDate(utcDate(year, local.getUTCMonth(), 1), offset, timeZone);
      // ISO weeks start on Monday: getUTCDay() is 0 for Sunday.
      const sinceMonday = (local.getUTCDay() + 6) % 7;
      return dayOfLocalDate(utcDate(year, local.getUTCMonth(), local.getUTCDate() - sinceMonday), offset, timeZone);
    }
  }
}

// How far past a bucket's start surely lies inside the next bucket: longer than any bucket of the period (days of 23
// to 25 hours, months of 28 to 31 days) and shorter than that plus the shortest next one.
const STEP: Record<Exclude<MetricPeriod, 'hour'>, number> = { minute: MINUTE, day: 36 * HOUR, week: 7 * DAY + 12 * HOUR, month: 32 * DAY, year: 366 * DAY + 12 * HOUR };

/** The start of the bucket of `period` that holds `at`, in `timeZone` (weeks start on Monday). */
export function bucketStart(at: Date, period: MetricPeriod, timeZone: string): Date {
  const t = at.getTime();
  if (!Number.isFinite(t)) throw new RangeError('not a valid date');
  return new Date(startMs(t, period, timeZone));
}

/** The start of the bucket after the one that holds `at`. */
export function nextBucketStart(at: Date, period: MetricPeriod, timeZone: string): Date {
  const start = bucketStart(at, period, timeZone).getTime();
  if (period !== 'hour') return new Date(startMs(start + STEP[period], period, timeZone));
  // An hour lasts 30 to 90 minutes where clocks move by half an hour (Lord Howe Island): step until past it.
  let probe = start + HOUR;
  let next = startMs(probe, 'hour', timeZone);
  while (next <= start) {
    probe += HOUR / 2;
    next = startMs(probe, 'hour', timeZone);
  }
  return new Date(next);
}

/** An instant as read on a clock in a zone: the fields OpenHIM's answer items carry in `_id`, and ISO 8601 text with the zone's offset. */
export interface ZonedParts {
  iso: string;
  year: number;
  /** 0 for January, as OpenHIM (moment) counts. */
  month: number;
  /** ISO 8601 week number (weeks start on Monday). */
  week: number;
  /** Day of the week, 0 for Sunday, as OpenHIM (moment) counts. */
  day: number;
  hour: number;
  minute: number;
}

/** The wall-clock fields of `at` in `timeZone`. */
export function zonedParts(at: Date, timeZone: string): ZonedParts {
  const local = inZone(at, timeZone);
  return { iso: local.toISO() ?? at.toISOString(), year: local.year, month: local.month - 1, week: local.weekNumber, day: local.weekday % 7, hour: local.hour, minute: local.minute };
}

/**
 * The start of every bucket that starts within [start, end], both ends included (OpenHIM's rule: a bucket belongs to
 * a range when its start does). At most `limit` starts are listed.
 */
export function bucketsBetween(start: Date, end: Date, period: MetricPeriod, timeZone: string, limit = Number.POSITIVE_INFINITY): Date[] {
  const starts: Date[] = [];
  let at = bucketStart(start, period, timeZone);
  if (at.getTime() < start.getTime()) at = nextBucketStart(at, period, timeZone);
  while (at.getTime() <= end.getTime() && starts.length < limit) {
    starts.push(at);
    const next = nextBucketStart(at, period, timeZone);
    if (next.getTime() <= at.getTime()) throw new RangeError(`no ${period} bucket after ${at.toISOString()} in ${timeZone}`);
    at = next;
  }
  return starts;
}

/** What a store reads for the buckets that start within [start, end]: source rows with `from ≤ startTime < to`. */
export interface BucketWindow {
  from: Date;
  to: Date;
}

/** The instants a query's buckets cover: from the first bucket start at or after `start` to the end of the bucket holding `end`. */
export function bucketWindow(start: Date, end: Date, period: MetricPeriod, timeZone: string): BucketWindow {
  const first = bucketStart(start, period, timeZone);
  const from = first.getTime() < start.getTime() ? nextBucketStart(first, period, timeZone) : first;
  return { from, to: nextBucketStart(end, period, timeZone) };
}

// Every boundary of the coarse buckets in the window is also a boundary of the fine buckets in their own zone.
function boundariesAlign(window: BucketWindow, coarse: MetricPeriod, coarseZone: string, fine: StoredPeriod, fineZone: string): boolean {
  const bounds = bucketsBetween(window.from, window.to, coarse, coarseZone, MAX_QUERY_BUCKETS + 1);
  return bounds.every((at) => bucketStart(at, fine, fineZone).getTime() === at.getTime());
}

/**
 * The coarsest stored period whose buckets (cut in `storedZone`) add up exactly to the buckets of `period` in
 * `timeZone` over the window, or null when none does. Day buckets serve week, month and year in their own zone; a
 * query in another zone falls back to hour buckets when its days start on an hour there, and to minute buckets (kept
 * only for a while) when it does not, such as India's half-hour offset against UTC.
 */
export function sourcePeriod(period: MetricPeriod, timeZone: string, storedZone: string, window: BucketWindow): StoredPeriod | null {
  for (const fine of [...STORED_PERIODS].reverse()) {
    if (comparePeriods(fine, period) > 0) continue;
    if (boundariesAlign(window, period, timeZone, fine, storedZone)) return fine;
  }
  return null;
}

/** Which stored buckets answer a query: rows of `period` with `from ≤ startTime < to`. */
export interface MetricsSource {
  period: StoredPeriod;
  from: Date;
  to: Date;
}

export type MetricsSourceResult = { ok: true; source: MetricsSource } | { ok: false; problems: ValidationProblem[] };

/**
 * What to read for a parsed query, given the zone the stored buckets were cut in and the start of the oldest minute
 * bucket still kept. Totals read hour buckets that start within the range, as OpenHIM does. A time series reads the
 * coarsest stored buckets that add up exactly to its own; when only minute buckets would, and those have expired for
 * part of the range, the answer would be silently short, so it is a problem instead.
 */
export function metricsSource(query: MetricsQuery, storedZone: string, minutesKeptFrom: Date): MetricsSourceResult {
  if (query.period === undefined) return { ok: true, source: { period: 'hour', from: query.startDate, to: new Date(query.endDate.getTime() + 1) } };
  const window = bucketWindow(query.startDate, query.endDate, query.period, query.timeZone);
  const period = sourcePeriod(query.period, query.timeZone, storedZone, window);
  if (period === null || (period === 'minute' && query.period !== 'minute' && window.from.getTime() < minutesKeptFrom.getTime())) {
    const message = `${query.period} buckets in ${query.timeZone} do not line up with the stored hour and day buckets (cut in ${storedZone}), and minute buckets are kept only from ${minutesKeptFrom.toISOString()}; ask in ${storedZone}, or in a zone whose days start on the hour there, or for a later range`;
    return { ok: false, problems: [{ path: 'query.timeZone', message }] };
  }
  return { ok: true, source: { period, ...window } };
}

/**
 * The cut-off for expiring buckets of `period` kept for `keepMs`: delete those whose start is before it. A bucket is
 * dropped only when all of it is older than `keepMs`, so the bucket holding the cut-off instant stays whole.
 */
export function expiredBefore(now: Date, period: MetricPeriod, keepMs: number, timeZone = 'UTC'): Date {
  if (!Number.isFinite(keepMs) || keepMs < 0) throw new RangeError(`a retention time must be zero or more milliseconds, not ${keepMs}`);
  return bucketStart(new Date(now.getTime() - keepMs), period, timeZone);
}

/** A metrics query as the API reads it. */
export interface MetricsQuery {
  startDate: Date;
  endDate: Date;
  /** The IANA zone (or fixed offset such as `UTC+2`) the buckets are cut in. */
  timeZone: string;
  /** The time-series period, on the timeseries routes only. */
  period?: MetricPeriod;
}

export type MetricsQueryResult = { ok: true; query: MetricsQuery } | { ok: false; problems: ValidationProblem[] };

/** Options of `parseMetricsQuery`: the `:timeSeries` path parameter when the route has one, and the bucket limit. */
export interface MetricsQueryOptions {
  period?: unknown;
  maxBuckets?: number;
}

// No transaction is older than the Unix epoch, and the bucket arithmetic stays far from the ends of Date's range.
const FIRST_YEAR = 1970;
const LAST_YEAR = 9999;
const DATE_EXAMPLE = 'an ISO 8601 date and time with its offset, such as 2026-11-24T07:00:00+02:00';
// An offset (or Z) after the time part; a date alone ends in "-DD", which is not one.
const OFFSET_AT_END = /T[\d:.,]+(?:Z|[+-]\d\d(?::?\d\d)?)$/i;
// "+02:00" written raw in a URL arrives as " 02:00": a space where the sign was.
const SPACE_FOR_PLUS = /(T[\d:.,]+) (\d\d(?::?\d\d)?)$/i;

interface ReadDate {
  date: Date;
  /** Minutes east of UTC written in the text, or null when it has none. */
  offset: number | null;
}

function readDate(raw: unknown, name: string, zone: string | null, problems: ValidationProblem[]): ReadDate | null {
  const path = `query.${name}`;
  if (raw === undefined || raw === '') {
    problems.push({ path, message: `is required: ${DATE_EXAMPLE}` });
    return null;
  }
  if (typeof raw !== 'string') {
    problems.push({ path, message: `must be given once, as ${DATE_EXAMPLE}` });
    return null;
  }
  const text = raw.trim().replace(SPACE_FOR_PLUS, '$1+$2');
  const hasOffset = OFFSET_AT_END.test(text);
  if (!hasOffset && zone === null) {
    problems.push({ path, message: `has no offset and no timeZone was given; add the offset, such as +02:00, or a timeZone parameter` });
    return null;
  }
  const parsed = hasOffset ? DateTime.fromISO(text, { setZone: true }) : DateTime.fromISO(text, { zone: zone ?? 'UTC' });
  if (!parsed.isValid) {
    problems.push({ path, message: `must be ${DATE_EXAMPLE}; "${raw}" is not` });
    return null;
  }
  if (parsed.year < FIRST_YEAR || parsed.year > LAST_YEAR) {
    problems.push({ path, message: `must be a date from ${FIRST_YEAR} to ${LAST_YEAR}` });
    return null;
  }
  return { date: parsed.toJSDate(), offset: hasOffset ? parsed.offset : null };
}

// A query value as the problem message quotes it: repeated parameters arrive as arrays.
function shown(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value) ?? typeof value;
}

function offsetIn(at: Date, timeZone: string): number {
  return inZone(at, timeZone).offset;
}

// With no timeZone parameter the dates' offsets decide. The default zone is used when it has those offsets at those
// instants (the console sends its local offset, usually the clinic's zone), so days follow its DST; otherwise the
// offset itself, as a fixed zone.
function zoneFromOffsets(start: ReadDate, end: ReadDate, timeZoneDefault: string, problems: ValidationProblem[]): string | null {
  if (start.offset === null || end.offset === null) return null;
  const zone = canonicalTimeZone(timeZoneDefault);
  if (zone !== null && offsetIn(start.date, zone) === start.offset && offsetIn(end.date, zone) === end.offset) return zone;
  if (start.offset !== end.offset) {
    problems.push({ path: 'query.timeZone', message: `is needed: startDate and endDate have different offsets and the default zone ${timeZoneDefault} does not match them; name the zone, such as Europe/London` });
    return null;
  }
  return FixedOffsetZone.instance(start.offset).name;
}

/**
 * Reads a metrics query (`startDate`, `endDate`, `timeZone`, and the `:timeSeries` period when given) into dates, a
 * zone and a period, or the problems that make it a 400: each missing or malformed value by name, an unknown zone, a
 * range that does not run forwards, and a time series of more than `maxBuckets` buckets.
 */
export function parseMetricsQuery(query: Readonly<Record<string, unknown>>, timeZoneDefault: string, options: MetricsQueryOptions = {}): MetricsQueryResult {
  const problems: ValidationProblem[] = [];
  let zone: string | null = null;
  const rawZone = query['timeZone'];
  if (rawZone !== undefined) {
    zone = typeof rawZone === 'string' ? canonicalTimeZone(rawZone) : null;
    if (zone === null) problems.push({ path: 'query.timeZone', message: `must be one IANA time zone name, such as Europe/London or Africa/Johannesburg; ${shown(rawZone)} is not known` });
  }
  let period: MetricPeriod | undefined;
  if (options.period !== undefined) {
    if (isMetricPeriod(options.period)) period = options.period;
    else problems.push({ path: 'params.timeSeries', message: `must be one of ${METRIC_PERIODS.join(', ')}; ${shown(options.period)} is not` });
  }
  // An unknown zone was already named; do not also blame the dates for it.
  const zoneForDates = rawZone !== undefined && zone === null ? 'UTC' : zone;
  const start = readDate(query['startDate'], 'startDate', zoneForDates, problems);
  const end = readDate(query['endDate'], 'endDate', zoneForDates, problems);
  if (start === null || end === null || problems.length > 0) return { ok: false, problems };

  if (start.date.getTime() >= end.date.getTime()) {
    return { ok: false, problems: [{ path: 'query.endDate', message: 'must be after startDate' }] };
  }
  const timeZone = zone ?? zoneFromOffsets(start, end, timeZoneDefault, problems);
  if (timeZone === null) return { ok: false, problems };

  if (period !== undefined) {
    const maxBuckets = options.maxBuckets ?? MAX_QUERY_BUCKETS;
    const count = bucketsBetween(start.date, end.date, period, timeZone, maxBuckets + 1).length;
    if (count > maxBuckets) {
      const coarser = METRIC_PERIODS[METRIC_PERIODS.indexOf(period) + 1];
      const advice = coarser === undefined ? 'shorten the range' : `choose a coarser period, such as ${coarser}, or a shorter range`;
      return { ok: false, problems: [{ path: 'params.timeSeries', message: `would give more than ${maxBuckets} ${period} buckets between startDate and endDate; ${advice}` }] };
    }
  }
  const parsed: MetricsQuery = { startDate: start.date, endDate: end.date, timeZone };
  if (period !== undefined) parsed.period = period;
  return { ok: true, query: parsed };
}
