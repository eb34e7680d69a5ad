/**
 * A transaction log wrapper that queues transactions for auto retry as they are flagged. Whatever sets
 * `autoRetry: true` (the pipeline on a connection error or timeout, a mediator's `error`, an admin's PUT) writes
 * through it, and the id goes into the small autoRetries collection first, so the auto-retry scan reads that queue
 * instead of scanning the log. The queue may hold ids whose flag is off (a crash between the two writes, or an admin
 * clearing the flag); the scan drops those, after `written(id)`, so that it never mistakes the moment between the
 * two writes for a stale entry. `written` knows this process's writes only: with several instances on one database
 * the scan also gives a young entry time before dropping it (schedulers/auto-retry.ts).
 */
import type { Logger } from 'pino';
import type { AutoRetryRecord } from './records.js';
import type { Collection } from './store.js';
import { UniqueConstraintError } from './store.js';
import type { CountOptions, MetricsRange, PageOptions, TransactionChanges, TransactionFilter, TransactionLog, TransactionRecord } from './transactions.js';
import type { StoredPeriod } from '../domain/operations/metric-periods.js';

export interface QueueingTransactionLog extends TransactionLog {
  /** Resolves once no write that queued this transaction is still on its way to the log. */
  written(id: string): Promise<void>;
}

/** Wraps `log` so that every write setting autoRetry to true also queues the transaction in `queue`. */
export function queueAutoRetries(log: TransactionLog, queue: Collection<AutoRetryRecord>, logger: Logger): QueueingTransactionLog {
  const inFlight = new Map<string, Promise<unknown>>();

  const enqueue = async (id: string): Promise<void> => {
    try {
      await queue.insert({ _id: id, queuedAt: new Date() });
    } catch (err) {
      if (err instanceof UniqueConstraintError) return;
      // The transaction itself must still be stored; only its retry is lost, and the log says so.
      logger.error({ err, transactionId: id }, 'could not queue the transaction for auto retry; it will not be retried');
    }
  };

  /** Queues, then writes; the pair is visible to `written` from before the queue entry exists. */
  const queued = async <T>(id: string, write: () => Promise<T>): Promise<T> => {
    const done = enqueue(id).then(write);
    const settled = done.catch(() => undefined);
    inFlight.set(id, settled);
    try {
      return await done;
    } finally {
      if (inFlight.get(id) === settled) inFlight.delete(id);
    }
  };

  return {
    open: () => log.open(),
    close: () => log.close(),
    insert: (doc: TransactionRecord) => (doc.autoRetry ? queued(doc._id, () => log.insert(doc)) : log.insert(doc)),
    update: (id: string, changes: TransactionChanges) => (changes.set?.autoRetry === true ? queued(id, () => log.update(id, changes)) : log.update(id, changes)),
    written: async (id: string) => {
      await inFlight.get(id);
    },
    get: (id: string) => log.get(id),
    remove: (id: string) => log.remove(id),
    page: (filter: TransactionFilter, options: PageOptions) => log.page(filter, options),
    count: (filter: TransactionFilter) => log.count(filter),
    estimatedCount: () => log.estimatedCount(),
    countUpTo: (filter: TransactionFilter, cap: number, options?: CountOptions) => log.countUpTo(filter, cap, options),
    stream: (filter: TransactionFilter, options?: PageOptions) => log.stream(filter, options),
    failInterrupted: () => log.failInterrupted(),
    metrics: (range: MetricsRange) => log.metrics(range),
    metricsTimeZone: log.metricsTimeZone,
    dropMetricsBefore: (period: StoredPeriod, before: Date) => log.dropMetricsBefore(period, before),
    finishedAfter: (afterSeq: number, limit: number) => log.finishedAfter(afterSeq, limit),
    lastFinishedSeq: () => log.lastFinishedSeq(),
    dropFinishedBefore: (before: Date) => log.dropFinishedBefore(before),
    hasChannel: (channelID: string) => log.hasChannel(channelID),
    days: () => log.days(),
    dropDaysBefore: (day: string) => log.dropDaysBefore(day),
  };
}
