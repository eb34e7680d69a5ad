/**
 * What the metrics charts show: the period choices and the buckets each spans, the answer's items laid on every
 * bucket of the period (the server answers only buckets with data; the rest are zero, not gaps), and the status
 * counts per channel. Pure: the clock is passed in. Buckets are cut in the browser's zone, the one sent to the server.
 */
import type { MetricItem } from '../../../../service/contracts/metrics';
import type { MetricSeries } from '../../api/metrics';

export type PeriodChoice = '1h' | '1d' | '1w' | '1m' | '1y';

export interface PeriodOption {
  value: PeriodChoice;
  label: string;
  /** The bucket size asked for. */
  series: MetricSeries;
}

/** As OpenHIM's console offers them; a year is month buckets (which Junction serves as real months). */
export const PERIODS: readonly PeriodOption[] = [
  { value: '1h', label: '1 hour', series: 'minute' },
  { value: '1d', label: '1 day', series: 'hour' },
  { value: '1w', label: '1 week', series: 'day' },
  { value: '1m', label: '1 month', series: 'day' },
  { value: '1y', label: '1 year', series: 'month' },
];

export function periodOption(choice: PeriodChoice): PeriodOption {
  return PERIODS.find((p) => p.value === choice) ?? (PERIODS[1] as PeriodOption);
}

export function isPeriodChoice(value: unknown): value is PeriodChoice {
  return PERIODS.some((p) => p.value === value);
}

/** The start of the bucket holding `at`, in local time. */
export function bucketStart(at: Date, series: MetricSeries): Date {
  const d = new Date(at);
  switch (series) {
    case 'minute':
      d.setSeconds(0, 0);
      break;
    case 'hour':
      d.setMinutes(0, 0, 0);
      break;
    case 'day':
      d.setHours(0, 0, 0, 0);
      break;
    case 'week': {
      d.setHours(0, 0, 0, 0);
      // Weeks start on Monday (ISO 8601), as the server cuts them.
      d.setDate(d.getDate() - ((d.getDay() + 6) % 7));
      break;
    }
    case 'month':
      d.setHours(0, 0, 0, 0);
      d.setDate(1);
      break;
    case 'year':
      d.setHours(0, 0, 0, 0);
      d.setMonth(0, 1);
      break;
  }
  return d;
}

/** The start of the bucket after the one starting at `start` (calendar steps, so days across a clock change hold). */
export function nextBucket(start: Date, series: MetricSeries): Date {
  const d = new Date(start);
  switch (series) {
    case 'minute':
      return new Date(start.getTime() + 60_000);
    case 'hour':
      // Hours are fixed lengths; stepping the wall clock would repeat or skip one at a clock change.
      return bucketStart(new Date(start.getTime() + 3_600_000), 'hour');
    case 'day':
      d.setDate(d.getDate() + 1);
      return bucketStart(d, 'day');
    case 'week':
      d.setDate(d.getDate() + 7);
      return bucketStart(d, 'week');
    case 'month':
      d.setMonth(d.getMonth() + 1, 1);
      return bucketStart(d, 'month');
    case 'year':
      d.setFullYear(d.getFullYear() + 1, 0, 1);
      return bucketStart(d, 'year');
  }
}

/** The range a period covers up to `now`: whole buckets, the current one last. */
export function periodRange(choice: PeriodChoice, now: Date): { start: Date; end: Date } {
  const { series } = periodOption(choice);
  const from = new Date(now);
  switch (choice) {
    case '1h':
      from.setMinutes(from.getMinutes() - 59);
      break;
    case '1d':
      from.setHours(from.getHours() - 23);
      break;
    case '1w':
      from.setDate(from.getDate() - 6);
      break;
    case '1m':
      from.setMonth(from.getMonth() - 1);
      from.setDate(from.getDate() + 1);
      break;
    case '1y':
      from.setMonth(from.getMonth() - 11, 1);
      break;
  }
  return { start: bucketStart(from, series), end: now };
}

/** Every bucket start from `start` up to `end`. */
export function bucketStarts(start: Date, end: Date, series: MetricSeries): Date[] {
  const starts: Date[] = [];
  for (let at = bucketStart(start, series); at <= end && starts.length < 10_000; at = nextBucket(at, series)) starts.push(at);
  return starts;
}

export interface SeriesPoint {
  /** Bucket start, ms since the epoch. */
  at: number;
  label: string;
  /** Requests. */
  total: number;
  /** Mean response time in ms, 0 without requests. */
  avgResp: number;
  /** The five status counts, for a channel's breakdown. */
  successful: number;
  completed: number;
  completedWErrors: number;
  failed: number;
  processing: number;
}

/** A bucket's start as its axis label. */
export function bucketLabel(at: Date, series: MetricSeries): string {
  switch (series) {
    case 'minute':
    case 'hour':
      return at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    case 'day':
    case 'week':
      return at.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
    case 'month':
      return at.toLocaleDateString(undefined, { month: 'short', year: 'numeric' });
    case 'year':
      return String(at.getFullYear());
  }
}

/**
 * One point per bucket of the range, zero where the answer has none. Each item goes to the bucket its timestamp
 * falls in (not only one starting at exactly that instant), so an answer cut in another zone still adds up.
 */
export function fillSeries(items: readonly MetricItem[], start: Date, end: Date, series: MetricSeries): SeriesPoint[] {
  const points: SeriesPoint[] = bucketStarts(start, end, series).map((at) => ({
    at: at.getTime(),
    label: bucketLabel(at, series),
    total: 0,
    avgResp: 0,
    successful: 0,
    completed: 0,
    completedWErrors: 0,
    failed: 0,
    processing: 0,
  }));
  const respSum = new Map<number, number>();
  for (const item of items) {
    if (item.timestamp === undefined) continue;
    const at = new Date(item.timestamp).getTime();
    if (Number.isNaN(at)) continue;
    // The last bucket starting at or before the item.
    let index = -1;
    for (let i = points.length - 1; i >= 0; i--) {
      if ((points[i] as SeriesPoint).at <= at) {
        index = i;
        break;
      }
    }
    const point = points[index];
    if (point === undefined) continue;
    point.total += item.total;
    point.successful += item.successful;
    point.completed += item.completed;
    point.completedWErrors += item.completedWErrors;
    point.failed += item.failed;
    point.processing += item.processing;
    respSum.set(index, (respSum.get(index) ?? 0) + item.avgResp * item.total);
  }
  for (const [index, sum] of respSum) {
    const point = points[index] as SeriesPoint;
    point.avgResp = point.total === 0 ? 0 : Math.round((sum / point.total) * 10) / 10;
  }
  return points;
}

/** The five status counts, in the order the charts stack them, with their labels and colours. */
export const STATUS_SERIES = [
  { key: 'successful', label: 'Successful', color: 'teal.6' },
  { key: 'completed', label: 'Completed', color: 'yellow.6' },
  { key: 'completedWErrors', label: 'Completed with error(s)', color: 'orange.6' },
  { key: 'failed', label: 'Failed', color: 'red.6' },
  { key: 'processing', label: 'Processing', color: 'blue.6' },
] as const;

export type StatusKey = (typeof STATUS_SERIES)[number]['key'];

export interface ChannelStatusRow extends Record<StatusKey, number> {
  channelID: string;
  name: string;
  total: number;
}

/** One row per channel in the answer, named from the channels list (its id when the name is unknown), by name. */
export function channelStatusRows(items: readonly MetricItem[], names: ReadonlyMap<string, string>): ChannelStatusRow[] {
  const rows = new Map<string, ChannelStatusRow>();
  for (const item of items) {
    const channelID = item._id.channelID;
    if (typeof channelID !== 'string') continue;
    const row = rows.get(channelID) ?? { channelID, name: names.get(channelID) ?? channelID, total: 0, successful: 0, completed: 0, completedWErrors: 0, failed: 0, processing: 0 };
    row.total += item.total;
    for (const { key } of STATUS_SERIES) row[key] += item[key];
    rows.set(channelID, row);
  }
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The totals of all items: a channel's status breakdown, or the sum over channels. */
export function statusTotals(items: readonly MetricItem[]): Record<StatusKey | 'total', number> {
  const totals = { total: 0, successful: 0, completed: 0, completedWErrors: 0, failed: 0, processing: 0 };
  for (const item of items) {
    totals.total += item.total;
    for (const { key } of STATUS_SERIES) totals[key] += item[key];
  }
  return totals;
}
