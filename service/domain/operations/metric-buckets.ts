/**
 * Metric buckets: the record kept per channel and bucket, how a completed transaction updates it, how fine buckets
 * roll up into coarser ones, and the answer items of OpenHIM's metrics routes. Pure: the storage reads and writes
 * the records, this decides what they hold.
 */
import type { MetricItem, MetricItemId } from '../../contracts/metrics.js';
import type { TransactionStatus } from '../transactions/transaction-status.js';
import { bucketStart, comparePeriods, nextBucketStart, STORED_PERIODS, zonedParts } from './metric-periods.js';
import type { MetricPeriod, StoredPeriod } from './metric-periods.js';

// The answer items' shape is the wire's (contracts/metrics.ts); it is offered here too, beside the code that fills it.
export type { MetricItem, MetricItemId };

/** Which bucket a record is: one channel, one period, one start, in one zone. */
export interface MetricBucketKey {
  channelID: string;
  period: MetricPeriod;
  /** The bucket's first instant (OpenHIM's `startTime`). */
  startTime: Date;
  /**
   * The IANA zone the bucket was cut in. A day bucket means nothing without it, and keeping it lets a query see that
   * buckets written before a change of the configured zone do not line up with its own.
   */
  timeZone: string;
}

/** Counts and response times of one bucket; field names are OpenHIM's `metrics` collection's where it has them. */
export interface MetricBucket extends MetricBucketKey {
  requests: number;
  successful: number;
  completed: number;
  completedWithErrors: number;
  failed: number;
  processing: number;
  /** Milliseconds; 0 while the bucket has no requests. */
  minResponseTime: number;
  maxResponseTime: number;
  /** Sum of the response times in milliseconds (OpenHIM's `responseTime`, renamed because it is not one time). */
  totalResponseTime: number;
}

/** What a completed transaction adds to its buckets. */
export interface MetricCompletion {
  status: TransactionStatus;
  /** Response timestamp minus request timestamp, in milliseconds. */
  responseTimeMs: number;
}

const STATUS_COUNTERS = {
  Processing: 'processing',
  Successful: 'successful',
  Completed: 'completed',
  'Completed with error(s)': 'completedWithErrors',
  Failed: 'failed',
} as const satisfies Record<TransactionStatus, keyof MetricBucket>;

/** The minute, hour and day buckets a transaction whose request arrived `at` counts in (OpenHIM keys on the request time). */
export function completionKeys(channelID: string, at: Date, timeZone: string): MetricBucketKey[] {
  return STORED_PERIODS.map((period: StoredPeriod) => ({ channelID, period, startTime: bucketStart(at, period, timeZone), timeZone }));
}

/**
 * The stored buckets' starts for request times, remembering the last bucket of each period: consecutive transactions
 * nearly always fall in the same minute, hour and day, so the zone arithmetic runs about once a minute rather than
 * three times per transaction on the proxy's path.
 */
export class BucketStarts {
  readonly #last = new Map<StoredPeriod, { from: number; to: number }>();

  constructor(readonly timeZone: string) {}

  /** The start of the bucket of `period` holding `atMs`, in milliseconds. */
  startOf(atMs: number, period: StoredPeriod): number {
    const last = this.#last.get(period);
    if (last !== undefined && atMs >= last.from && atMs < last.to) return last.from;
    const start = bucketStart(new Date(atMs), period, this.timeZone);
    const from = start.getTime();
    this.#last.set(period, { from, to: nextBucketStart(start, period, this.timeZone).getTime() });
    return from;
  }
}

/** A bucket with nothing counted yet. */
export function emptyBucket(key: MetricBucketKey): MetricBucket {
  return {
    channelID: key.channelID,
    period: key.period,
    startTime: key.startTime,
    timeZone: key.timeZone,
    requests: 0,
    successful: 0,
    completed: 0,
    completedWithErrors: 0,
    failed: 0,
    processing: 0,
    minResponseTime: 0,
    maxResponseTime: 0,
    totalResponseTime: 0,
  };
}

/** The bucket (or a new one for `key`) with one more completion counted. */
export function recordCompletion(bucket: MetricBucket | undefined, completion: MetricCompletion, key: MetricBucketKey): MetricBucket {
  const base = bucket ?? emptyBucket(key);
  // A clock stepped back between request and response would give a negative time; it counts as instant rather than
  // lowering the totals.
  const time = Number.isFinite(completion.responseTimeMs) ? Math.max(0, completion.responseTimeMs) : 0;
  const counter = STATUS_COUNTERS[completion.status];
  return {
    ...base,
    requests: base.requests + 1,
    [counter]: base[counter] + 1,
    minResponseTime: base.requests === 0 ? time : Math.min(base.minResponseTime, time),
    maxResponseTime: base.requests === 0 ? time : Math.max(base.maxResponseTime, time),
    totalResponseTime: base.totalResponseTime + time,
  };
}

/** Two buckets' counts added together, under `key`: what a store does when it flushes a batch into a stored row. */
export function mergeBuckets(a: MetricBucket, b: MetricBucket, key: MetricBucketKey = a): MetricBucket {
  // An empty bucket's 0 is "no time", not a time of 0 ms.
  const times = [a, b].filter((bucket) => bucket.requests > 0);
  return {
    ...emptyBucket(key),
    requests: a.requests + b.requests,
    successful: a.successful + b.successful,
    completed: a.completed + b.completed,
    completedWithErrors: a.completedWithErrors + b.completedWithErrors,
    failed: a.failed + b.failed,
    processing: a.processing + b.processing,
    minResponseTime: times.length === 0 ? 0 : Math.min(...times.map((bucket) => bucket.minResponseTime)),
    maxResponseTime: times.length === 0 ? 0 : Math.max(...times.map((bucket) => bucket.maxResponseTime)),
    totalResponseTime: a.totalResponseTime + b.totalResponseTime,
  };
}

/**
 * Finer buckets combined into buckets of `period` in `timeZone`, one per channel and start, sorted by start then
 * channel. Throws a RangeError when a bucket is coarser than `period` or straddles two of its buckets (day buckets of
 * another zone): `sourcePeriod` says which stored buckets fit.
 */
export function rollUp(buckets: readonly MetricBucket[], period: MetricPeriod, timeZone: string): MetricBucket[] {
  const groups = new Map<string, MetricBucket>();
  // Many channels share each start: work out each start's place once.
  const places = new Map<string, Date>();
  for (const bucket of buckets) {
    if (comparePeriods(bucket.period, period) > 0) throw new RangeError(`a ${bucket.period} bucket cannot be split into ${period} buckets`);
    const placeKey = `${bucket.startTime.getTime()} ${bucket.period} ${bucket.timeZone}`;
    let start = places.get(placeKey);
    if (start === undefined) {
      start = bucketStart(bucket.startTime, period, timeZone);
      const fineEnd = nextBucketStart(bucket.startTime, bucket.period, bucket.timeZone);
      if (fineEnd.getTime() > nextBucketStart(start, period, timeZone).getTime()) {
        throw new RangeError(`the ${bucket.period} bucket at ${bucket.startTime.toISOString()} (${bucket.timeZone}) straddles two ${period} buckets in ${timeZone}`);
      }
      places.set(placeKey, start);
    }
    const key: MetricBucketKey = { channelID: bucket.channelID, period, startTime: start, timeZone };
    const groupKey = `${start.getTime()} ${bucket.channelID}`;
    const previous = groups.get(groupKey) ?? emptyBucket(key);
    groups.set(groupKey, mergeBuckets(previous, bucket, key));
  }
  return [...groups.values()].sort(byStartThenChannel);
}

function byStartThenChannel(a: MetricBucketKey, b: MetricBucketKey): number {
  return a.startTime.getTime() - b.startTime.getTime() || (a.channelID < b.channelID ? -1 : a.channelID > b.channelID ? 1 : 0);
}

/**
 * Which metrics route answers: `overall` is `GET /metrics`, `channels` is `/metrics/channels[/:channelID]`,
 * `timeseries` is `/metrics/timeseries/:timeSeries`, `timeseries-channels` is `/metrics/timeseries/:timeSeries/channels[/:channelID]`.
 */
export type MetricsGrouping = 'overall' | 'channels' | 'timeseries' | 'timeseries-channels';

/** What `metricItems` needs of a parsed query. */
export interface MetricItemsQuery {
  grouping: MetricsGrouping;
  startDate: Date;
  endDate: Date;
  timeZone: string;
  /** Required on the time-series groupings. */
  period?: MetricPeriod;
}

function item(bucket: MetricBucket, id: MetricItemId, timestamp?: string): MetricItem {
  const answer: MetricItem = {
    total: bucket.requests,
    avgResp: bucket.requests === 0 ? 0 : bucket.totalResponseTime / bucket.requests,
    minResp: bucket.minResponseTime,
    maxResp: bucket.maxResponseTime,
    failed: bucket.failed,
    successful: bucket.successful,
    processing: bucket.processing,
    completed: bucket.completed,
    completedWErrors: bucket.completedWithErrors,
    _id: id,
  };
  if (timestamp !== undefined) answer.timestamp = timestamp;
  return answer;
}

function sumBy(buckets: readonly MetricBucket[], keyOf: (bucket: MetricBucket) => string, period: MetricPeriod, timeZone: string): MetricBucket[] {
  const sums = new Map<string, MetricBucket>();
  for (const bucket of buckets) {
    const key = keyOf(bucket);
    const previous = sums.get(key);
    sums.set(key, previous === undefined ? { ...bucket, period, timeZone } : mergeBuckets(previous, bucket));
  }
  return [...sums.values()];
}

/**
 * The answer items of a metrics route from the buckets of the channels the caller may see (already narrowed to the
 * one in the path, when there is one). A bucket counts when its start lies within [startDate, endDate], as in
 * OpenHIM. Totals sum the buckets given (OpenHIM reads hour buckets for them); time series first roll the buckets up
 * into `period` in the query's zone, so week, month and year are real buckets. Sorted by time, then channel.
 */
export function metricItems(buckets: readonly MetricBucket[], query: MetricItemsQuery): MetricItem[] {
  const from = query.startDate.getTime();
  const to = query.endDate.getTime();
  const inRange = (bucket: MetricBucket): boolean => bucket.startTime.getTime() >= from && bucket.startTime.getTime() <= to;
  if (query.grouping === 'overall' || query.grouping === 'channels') {
    const counted = buckets.filter(inRange);
    if (query.grouping === 'overall') {
      const [total] = sumBy(counted, () => '', 'hour', query.timeZone);
      return total === undefined ? [] : [item(total, { channelID: null })];
    }
    return sumBy(counted, (bucket) => bucket.channelID, 'hour', query.timeZone)
      .sort(byChannel)
      .map((sum) => item(sum, { channelID: sum.channelID }));
  }
  if (query.period === undefined) throw new RangeError(`the ${query.grouping} grouping needs a period`);
  const period = query.period;
  const series = rollUp(buckets, period, query.timeZone).filter(inRange);
  const perChannel = query.grouping === 'timeseries-channels';
  const rows = perChannel ? series : sumBy(series, (bucket) => String(bucket.startTime.getTime()), period, query.timeZone).sort(byStartThenChannel);
  return rows.map((row) => {
    const { iso, ...parts } = zonedParts(row.startTime, query.timeZone);
    return item(row, perChannel ? { channelID: row.channelID, ...parts } : parts, iso);
  });
}

function byChannel(a: MetricBucketKey, b: MetricBucketKey): number {
  return a.channelID < b.channelID ? -1 : a.channelID > b.channelID ? 1 : 0;
}
