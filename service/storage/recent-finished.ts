/**
 * The search indexer's hand-over of records (issue 37, session 18): the transaction log wrapped so that each record
 * its writes return in a final status is kept, slim and bounded, until the indexer takes it once. The indexer reads
 * every finished transaction about a second after it was written; reading each back (a statement, a JSON parse and
 * the dates revived) was a tenth of indexing's cost at ingest. Kept are only the parts the indexer reads (id,
 * channel, request time, each body's reference and content type), copied, so nothing the caller changes later leaks in.
 *
 * The log stays the source of truth: a record not kept (evicted, written by another instance of a cluster, finished
 * at start-up recovery, before a restart) is read from the log as before. Any later write through this log replaces or
 * drops what is kept, so the indexer never takes an older version than this instance wrote.
 */
import type { BodyRef } from './bodies/bodies.js';
import type { FinishedTransaction, TransactionChanges, TransactionLog, TransactionRecord } from './transactions.js';
import type { TransactionFilter, PageOptions, MetricsRange, CountOptions } from './transactions.js';
import type { StoredPeriod } from '../domain/operations/metric-periods.js';
import type { MetricBucket } from '../domain/operations/metric-buckets.js';

/** Records kept by default: a few seconds of a busy clinic's traffic (a few hundred bytes each). */
export const RECENT_RECORDS = 20_000;

/** The parts of a stored transaction the search indexer reads. */
export interface IndexableRecord {
  _id: string;
  channelID: string;
  request: { timestamp: Date; headers: Record<string, string>; body?: BodyRef };
  response?: { headers: Record<string, string>; body?: BodyRef };
}

/** A part's headers as the indexer reads them: the content type alone. */
function contentTypeOnly(headers: Record<string, string> | undefined): Record<string, string> {
  const type = headers?.['content-type'];
  return type === undefined ? {} : { 'content-type': type };
}

function slim(record: TransactionRecord): IndexableRecord {
  const { request, response } = record;
  return {
    _id: record._id,
    channelID: record.channelID,
    request: { timestamp: request.timestamp, headers: contentTypeOnly(request.headers), ...(request.body === undefined ? {} : { body: { ...request.body } }) },
    ...(response === undefined ? {} : { response: { headers: contentTypeOnly(response.headers), ...(response.body === undefined ? {} : { body: { ...response.body } }) } }),
  };
}

export class RecentFinished {
  readonly #max: number;
  /** Insertion order is age: the oldest first. */
  readonly #kept = new Map<string, IndexableRecord>();
  /** Records taken from memory and read from the log, for the tests and the benchmark. */
  readonly counts = { taken: 0, missed: 0 };

  constructor(max = RECENT_RECORDS) {
    this.#max = max;
  }

  /** The record as last written here, once; undefined when it is not kept (read it from the log). */
  take(id: string): IndexableRecord | undefined {
    const kept = this.#kept.get(id);
    if (kept === undefined) {
      this.counts.missed++;
      return undefined;
    }
    this.#kept.delete(id);
    this.counts.taken++;
    return kept;
  }

  /** A write returned `record`: kept when final (replacing any older copy), dropped while it is still Processing. */
  noteWritten(record: TransactionRecord | null, id: string): void {
    this.#kept.delete(id);
    if (record === null || record.status === 'Processing') return;
    this.#kept.set(id, slim(record));
    if (this.#kept.size > this.#max) {
      const oldest = this.#kept.keys().next();
      if (oldest.done !== true) this.#kept.delete(oldest.value);
    }
  }

  forget(id: string): void {
    this.#kept.delete(id);
  }

  /** Retention dropped the days before `day` (ids begin with their epoch second). */
  forgetDaysBefore(day: string): void {
    const before = Date.parse(`${day}T00:00:00Z`) / 1000;
    for (const id of [...this.#kept.keys()]) if (parseInt(id.slice(0, 8), 16) < before) this.#kept.delete(id);
  }

  /** `log` with its writes noted here; everything else passes straight through. */
  wrap(log: TransactionLog): TransactionLog {
    return new NotingLog(log, this);
  }
}

/** The log, each write's result noted by `RecentFinished`. */
class NotingLog implements TransactionLog {
  constructor(
    private readonly log: TransactionLog,
    private readonly recent: RecentFinished,
  ) {}

  get metricsTimeZone(): string {
    return this.log.metricsTimeZone;
  }

  open(): Promise<void> {
    return this.log.open();
  }

  close(): Promise<void> {
    return this.log.close();
  }

  async insert(doc: TransactionRecord): Promise<TransactionRecord> {
    const inserted = await this.log.insert(doc);
    this.recent.noteWritten(inserted, inserted._id);
    return inserted;
  }

  async update(id: string, changes: TransactionChanges): Promise<TransactionRecord | null> {
    try {
      const updated = await this.log.update(id, changes);
      this.recent.noteWritten(updated, id);
      return updated;
    } catch (err) {
      // What the write left is unknown here: the indexer reads the log instead.
      this.recent.forget(id);
      throw err;
    }
  }

  get(id: string): Promise<TransactionRecord | null> {
    return this.log.get(id);
  }

  async remove(id: string): Promise<boolean> {
    this.recent.forget(id);
    return this.log.remove(id);
  }

  page(filter: TransactionFilter, options: PageOptions): Promise<TransactionRecord[]> {
    return this.log.page(filter, options);
  }

  count(filter: TransactionFilter): Promise<number> {
    return this.log.count(filter);
  }

  estimatedCount(): Promise<{ count: number; exact: boolean }> {
    return this.log.estimatedCount();
  }

  countUpTo(filter: TransactionFilter, cap: number, options?: CountOptions): Promise<{ count: number; exact: boolean }> {
    return this.log.countUpTo(filter, cap, options);
  }

  stream(filter: TransactionFilter, options?: PageOptions): AsyncIterable<TransactionRecord> {
    return this.log.stream(filter, options);
  }

  failInterrupted(): Promise<number> {
    return this.log.failInterrupted();
  }

  hasChannel(channelID: string): Promise<boolean> {
    return this.log.hasChannel(channelID);
  }

  days(): Promise<string[]> {
    return this.log.days();
  }

  async dropDaysBefore(day: string): Promise<string[]> {
    this.recent.forgetDaysBefore(day);
    return this.log.dropDaysBefore(day);
  }

  metrics(range: MetricsRange): Promise<MetricBucket[]> {
    return this.log.metrics(range);
  }

  dropMetricsBefore(period: StoredPeriod, before: Date): Promise<number> {
    return this.log.dropMetricsBefore(period, before);
  }

  finishedAfter(afterSeq: number, limit: number): Promise<FinishedTransaction[]> {
    return this.log.finishedAfter(afterSeq, limit);
  }

  lastFinishedSeq(): Promise<number> {
    return this.log.lastFinishedSeq();
  }

  dropFinishedBefore(before: Date): Promise<number> {
    return this.log.dropFinishedBefore(before);
  }
}
