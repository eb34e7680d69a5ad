/**
 * The transaction log: a time series ordered by request time, whose ids encode the request's UTC day
 * (storage/transaction-ids.ts). Documents stay lean; bodies are in body files (storage/bodies/), referenced by
 * `BodyRef`. Queries read newest first and only what they return; retention drops whole days.
 */
import type { RequestLine, TransactionFields } from '../contracts/transactions.js';
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import type { MetricBucket } from '../domain/operations/metric-buckets.js';
import type { StoredPeriod } from '../domain/operations/metric-periods.js';
import type { ExchangeFilter, TransactionFilter } from '../domain/transactions/transaction-access.js';
import type { BodyRef } from './bodies/bodies.js';
import type { StoredDoc } from './records.js';
import type { Changes } from './store.js';

export interface TransactionRequest extends RequestLine {
  headers: Record<string, string>;
  timestamp: Date;
  body?: BodyRef;
}

export interface TransactionResponse {
  status: number;
  headers: Record<string, string>;
  timestamp: Date;
  body?: BodyRef;
  /** The answer arrived but its body could not be stored (a full disk); the error was logged. */
  bodyNotStored?: true;
}

/** One route's or one orchestration's exchange. */
export interface ExchangeRecord {
  name: string;
  request: TransactionRequest;
  response?: TransactionResponse;
  error?: { message: string; stack?: string };
}

export interface TransactionRecord extends StoredDoc, TransactionFields {
  /** 24 hex characters laid out like a MongoDB ObjectId: the first 8 are the request's epoch seconds. */
  _id: string;
  /**
   * Set while Processing once the client was answered and other routes still run: the status start-up recovery
   * gives the transaction if Junction stops before they finish (they are then recorded as interrupted). Without it,
   * an interrupted transaction's client was never answered, and recovery marks it Failed.
   */
  statusIfInterrupted?: TransactionStatus;
  request: TransactionRequest;
  response?: TransactionResponse;
  routes: ExchangeRecord[];
  orchestrations: ExchangeRecord[];
}

// What a list may filter on is decided with the rules that read the API's filters (domain/transactions/transaction-access.ts).
export type { ExchangeFilter, TransactionFilter };

/** Rows a `stream` reads from the log at once: what an unlimited list holds in memory at most. */
export const STREAM_BATCH = 500;

export interface PageOptions {
  limit: number;
  skip?: number;
}

/**
 * A transaction as it first reached a final status (anything but Processing), in commit order: what the alert job
 * reads. Each is written in the same commit as that status, so a reader that resumes after the last `seq` it read
 * misses none and reads none twice, whatever the clocks do.
 */
export interface FinishedTransaction {
  /** Increases with each commit; a reader keeps the last it read. */
  seq: number;
  id: string;
  channelID: string;
  status: TransactionStatus;
  /** The status code the client was answered with; unset when it got none. */
  responseStatus?: number;
  /** When the final status was committed. */
  at: Date;
  requestTimestamp: Date;
  autoRetryAttempt?: number;
  /** Flagged for another automatic retry. */
  autoRetry?: boolean;
}

/** Which metric buckets to read: those of `period` with `from <= startTime < to`, of the listed channels (all when unset). */
export interface MetricsRange {
  period: StoredPeriod;
  from: Date;
  to: Date;
  channelIDs?: readonly string[];
}

/** How long a count may take (`TransactionLog.countUpTo`). */
export interface CountOptions {
  /** Milliseconds of counting before the answer is given as it stands (not exact); none: count to the cap. */
  withinMs?: number;
}

/** The transaction log. All methods reject with a `StoreError` subclass on failure. */
export interface TransactionLog {
  /** Opens the log's files or connection. Rejects with `StoreOpenError` naming what to inspect or restore. */
  open(): Promise<void>;
  /** Finishes pending writes and releases the log's files or connection. Safe to call twice. */
  close(): Promise<void>;
  /** Stage 1: stores a new transaction (normally Processing); its id must encode its request day. */
  insert(doc: TransactionRecord): Promise<TransactionRecord>;
  /**
   * Stage 2 and later edits: applies changes in place (`set`, then `unset`, then `push`) in one write; null when the
   * id is unknown. `push` appends to the stored routes or orchestrations, so concurrent appends never lose one.
   */
  update(id: string, changes: TransactionChanges): Promise<TransactionRecord | null>;
  get(id: string): Promise<TransactionRecord | null>;
  remove(id: string): Promise<boolean>;
  /** Newest first (by request timestamp, then id), skipping `skip` matches. */
  page(filter: TransactionFilter, options: PageOptions): Promise<TransactionRecord[]>;
  count(filter: TransactionFilter): Promise<number>;
  /**
   * How many transactions the log holds, from what the engine already knows (never a scan of every row): exact while
   * the log is small, else an estimate (`exact` false), e.g. for the search index's progress over 10,000,000 rows.
   */
  estimatedCount(): Promise<{ count: number; exact: boolean }>;
  /**
   * Counts matches, stopping after `cap`: `exact` is false when there are more than `cap` (then `count` is `cap`).
   * What the list answers for a filter that matches millions (a common word), where an exact count would take seconds.
   * With `withinMs`, counting also stops after about that long (`exact` false): `count` is then what was counted so
   * far, or the engine's estimate from its statistics (PostgreSQL), at most `cap`.
   */
  countUpTo(filter: TransactionFilter, cap: number, options?: CountOptions): Promise<{ count: number; exact: boolean }>;
  /**
   * Every match (or the page `options` asks for; `limit: 0` is no limit), newest first, read `STREAM_BATCH` rows at a
   * time only as the consumer asks, so an export or an unlimited list never holds the whole log in memory.
   */
  stream(filter: TransactionFilter, options?: PageOptions): AsyncIterable<TransactionRecord>;
  /**
   * At start-up: finishes the transactions a crash left Processing (storage/interrupted.ts). One whose client was
   * answered gets its `statusIfInterrupted`, its unfinished routes marked interrupted; any other becomes Failed.
   * Returns how many it finished.
   */
  failInterrupted(): Promise<number>;
  /** True when the log holds any transaction of this channel. */
  hasChannel(channelID: string): Promise<boolean>;
  /** Days that have held transactions (`yyyy-mm-dd`), oldest first. */
  days(): Promise<string[]>;
  /**
   * Global retention: drops every transaction of the days before `day`, and the hour and day metric buckets that
   * start before that day's start in UTC; returns the days dropped.
   */
  dropDaysBefore(day: string): Promise<string[]>;
  /**
   * Metric buckets (minute, hour and day, cut in the log's metrics time zone), kept up to date in the same commit as
   * each transaction's first final status, by request time (OpenHIM's rule): never computed by scanning transactions.
   * Sorted by `startTime`, then `channelID`.
   */
  metrics(range: MetricsRange): Promise<MetricBucket[]>;
  /** The IANA zone the stored buckets are cut in. */
  readonly metricsTimeZone: string;
  /** Drops the buckets of `period` that start before `before`; returns how many. (Minute buckets are kept for a while.) */
  dropMetricsBefore(period: StoredPeriod, before: Date): Promise<number>;
  /** Up to `limit` finished transactions with `seq` greater than `afterSeq`, in `seq` order. */
  finishedAfter(afterSeq: number, limit: number): Promise<FinishedTransaction[]>;
  /** The greatest `seq` written so far (0 when none): where a reader starting now begins. */
  lastFinishedSeq(): Promise<number>;
  /** Drops finished-transaction entries committed before `before`; returns how many. */
  dropFinishedBefore(before: Date): Promise<number>;
}

/** A new 24-hex transaction id whose first 8 characters encode `at` in epoch seconds (MongoDB ObjectId layout). */
export type TransactionIdFactory = (at: Date) => string;

/** Exchanges appended to a transaction's lists by `TransactionLog.update` (an asynchronous mediator's later report). */
export interface TransactionPush {
  routes?: readonly ExchangeRecord[];
  orchestrations?: readonly ExchangeRecord[];
}

/** Changes to a transaction, as accepted by `TransactionLog.update`. */
export type TransactionChanges = Changes<TransactionRecord> & { push?: TransactionPush };
