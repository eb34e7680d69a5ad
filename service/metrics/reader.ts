/**
 * Reading metrics for the API: a parsed query and the channels a caller may see become the stored buckets that
 * answer it (domain/operations/metric-periods.ts decides which), then OpenHIM's answer items (domain/operations/metric-buckets.ts).
 * Nothing here scans transactions: the buckets are kept as transactions complete.
 */
import { expiredBefore, metricsSource } from '../domain/operations/metric-periods.js';
import type { MetricsQuery } from '../domain/operations/metric-periods.js';
import { metricItems } from '../domain/operations/metric-buckets.js';
import type { MetricItem, MetricsGrouping } from '../domain/operations/metric-buckets.js';
import type { TransactionLog } from '../storage/transactions.js';
import { invalidInput } from '../refusals.js';

export interface MetricsReaderOptions {
  transactions: Pick<TransactionLog, 'metrics' | 'metricsTimeZone'>;
  /** `metrics.minuteRetentionHours`: minute buckets older than this are gone. */
  minuteRetentionHours: number;
  now?: () => Date;
}

export class MetricsReader {
  readonly #options: MetricsReaderOptions;

  constructor(options: MetricsReaderOptions) {
    this.#options = options;
  }

  /** The zone the stored buckets are cut in. */
  get storedTimeZone(): string {
    return this.#options.transactions.metricsTimeZone;
  }

  /**
   * The answer items of one metrics route for `channelIDs` (undefined: every channel, for admins). A query whose
   * buckets the stored ones cannot add up to exactly is a 400 naming the zone to ask in, rather than a wrong answer.
   */
  async items(query: MetricsQuery, grouping: MetricsGrouping, channelIDs: readonly string[] | undefined): Promise<MetricItem[]> {
    const { transactions, minuteRetentionHours } = this.#options;
    if (channelIDs !== undefined && channelIDs.length === 0) return [];
    const now = this.#options.now?.() ?? new Date();
    const minutesKeptFrom = expiredBefore(now, 'minute', minuteRetentionHours * 3_600_000, transactions.metricsTimeZone);
    const source = metricsSource(query, transactions.metricsTimeZone, minutesKeptFrom);
    if (!source.ok) throw invalidInput(source.problems);
    const { period, from, to } = source.source;
    const buckets = await transactions.metrics({ period, from, to, ...(channelIDs === undefined ? {} : { channelIDs }) });
    return metricItems(buckets, { grouping, startDate: query.startDate, endDate: query.endDate, timeZone: query.timeZone, ...(query.period === undefined ? {} : { period: query.period }) });
  }
}
