/**
 * The transaction log on PostgreSQL (migration 3, transaction-log-schema.ts), shared by several Junction instances:
 * the filter columns beside the jsonb document, pages read newest first off the (…, ts, id) indexes, streams and
 * scans in keyset batches, and each transaction's first final status committed together with its finished entry and
 * metric counts (transaction-log-finish.ts), both appended so that completions never wait for one another. Every row names the instance that inserted it, so that the survivors can
 * finish what a dead instance left Processing (`failInterruptedOf`).
 */
import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import { BucketStarts } from '../../domain/operations/metric-buckets.js';
import type { MetricBucket } from '../../domain/operations/metric-buckets.js';
import type { StoredPeriod } from '../../domain/operations/metric-periods.js';
import type { TransactionStatus } from '../../domain/transactions/transaction-status.js';
import { checkChanges } from '../changes.js';
import type { CheckedChanges } from '../changes.js';
import { finishInterrupted } from '../interrupted.js';
import { StoreError, UniqueConstraintError } from '../store.js';
import { checkSetFields, toStoredPush, toStoredTransaction, transactionColumns } from '../transaction-documents.js';
import { normaliseTransactionFilter } from '../transaction-filter.js';
import type { NormalisedFilter } from '../transaction-filter.js';
import { dayOf, dayOfId, isDay } from '../transaction-ids.js';
import { STREAM_BATCH } from '../transactions.js';
import type { CountOptions, FinishedTransaction, MetricsRange, PageOptions, TransactionChanges, TransactionFilter, TransactionLog, TransactionRecord } from '../transactions.js';
import type { PostgresDatabase } from './database.js';
import { decode, encode } from './documents.js';
import { constraintOf, sqlState, wrapError } from './errors.js';
import { FOLD_METRICS_SQL, numberFinished, writeFinished } from './transaction-log-finish.js';
import { toLogConditions } from './transaction-log-where.js';
import { PostgresSearchIndex } from './search-index.js';
import { GroupedReads } from './grouped-reads.js';
import { LogWriteBatches } from './transaction-log-batches.js';
import type { BatchStats } from './transaction-log-batches.js';
import { wordsPlanOf } from './search-where.js';
import type { WordsPlan } from './search-where.js';
import type { LogConditions } from './transaction-log-where.js';
import { takePage } from '../take-page.js';

const COLLECTION = 'transactions';
/** Rows one statement of a scan reads when a filter is decided in JavaScript (transaction-log-where.ts). */
const SCAN_WINDOW = 2000;
/** Rows per retention delete, so that no statement holds its locks for long. */
const DELETE_BATCH = 5000;
const DAY_MS = 86_400_000;
const UNIQUE_VIOLATION = '23505';
/** The default of `storage.postgres.commitWindowMs`. */
export const COMMIT_WINDOW_MS = 1;
/** A statement stopped by its `statement_timeout`. */
const QUERY_CANCELED = '57014';
/** How long the words' shares (the plan of a search by words) are reused before PostgreSQL's statistics are read again. */
const WORD_SHARES_MS = 60_000;
/**
 * How far past the cap the statistics must put a words-only search before its count is skipped (`#surelyOver`): the
 * shares come from a sample of 30,000 rows, within a few tenths of a percent of the truth for the words they list.
 */
const SURELY_OVER_MARGIN = 3;
/**
 * The search entries (search-schema.ts) of the transactions a `gone` CTE deleted, removed by the same statement: the
 * parts of one statement commit together, so no search finds a removed transaction, nor outlives it.
 */
const SEARCH_ENTRIES_GONE = `gone_keys AS (DELETE FROM search_keys WHERE tx IN (SELECT decode(id, 'hex') FROM gone)),
  gone_docs AS (DELETE FROM search_docs WHERE tx IN (SELECT decode(id, 'hex') FROM gone))`;

export interface PostgresTransactionLogOptions {
  database: PostgresDatabase;
  logger: Logger;
  /** This instance's id, written into each row it inserts; `failInterrupted` finishes only rows of this id. */
  instanceId: string;
  /** The IANA zone metric buckets are cut in (the `timeZone` setting); default UTC. */
  metricsTimeZone?: string;
  /** The clock that stamps finished transactions; tests pass their own. */
  now?: () => number;
  /** Rows one statement of a JavaScript-filtered scan reads; default SCAN_WINDOW. */
  scanWindowRows?: number;
  /**
   * How long the first insert or update of a group commit waits for others to share its commit, in milliseconds
   * (`storage.postgres.commitWindowMs`, transaction-log-batches.ts); default COMMIT_WINDOW_MS.
   */
  commitWindowMs?: number;
}

/** The PostgreSQL log: the interface, and the recovery a survivor runs for an instance found dead. */
export interface PostgresTransactionLog extends TransactionLog {
  readonly instanceId: string;
  /** The search index (issue 37) in the log's database, on its pool: open while the log is. */
  readonly searchIndex: PostgresSearchIndex;
  /**
   * Finishes the transactions the instance `instanceId` left Processing, by the rule of storage/interrupted.ts, as
   * `failInterrupted` does for this instance's own; returns how many. Call it only for an instance known to be dead.
   */
  failInterruptedOf(instanceId: string): Promise<number>;
  /** How many group commits of inserts and updates this log has sent, and how many writes they carried. */
  readonly batchStats: BatchStats;
}

/** Creates the PostgreSQL transaction log over `database`; nothing connects until `open()`. */
/** Below this many rows (as the planner estimates) `estimatedCount` counts them. */
const EXACT_COUNT_UP_TO = 200_000;

export function createPostgresTransactionLog(options: PostgresTransactionLogOptions): PostgresTransactionLog {
  if (typeof options.instanceId !== 'string' || options.instanceId === '') throw new StoreError(`${COLLECTION}: instanceId must be a non-empty string`);
  return new PostgresLog(options);
}

interface DocRow {
  /** The order's id column: the log's hex id, or a search index row's bytes (search-schema.ts). */
  id: string | Buffer;
  ts: string;
  doc: unknown;
}

interface MetricRow {
  period: StoredPeriod;
  start: string;
  channel: string;
  zone: string;
  requests: string;
  successful: string;
  completed: string;
  completed_errors: string;
  failed: string;
  processing: string;
  min_ms: number;
  max_ms: number;
  total_ms: number;
}

interface FinishedRow {
  seq: string;
  id: string;
  channel: string;
  status: TransactionStatus;
  code: number | null;
  at: string;
  ts: string;
  retry: number | null;
  auto_retry: boolean;
  changed: boolean;
}

/** Where a keyset batch resumes: after this row, newest first. */
interface Keyset {
  ts: number;
  id: string | Buffer;
}

class PostgresLog implements PostgresTransactionLog {
  readonly instanceId: string;
  readonly searchIndex = new PostgresSearchIndex(() => this.#openPool());
  readonly metricsTimeZone: string;
  readonly #database: PostgresDatabase;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #scanWindow: number;
  readonly #buckets: BucketStarts;
  #pool: Pool | null = null;
  #opening: Promise<void> | null = null;
  #shares: { at: number; map: ReadonlyMap<string, number> } | null = null;
  readonly #batches: LogWriteBatches;
  /** Lookups by id in the same turn (the search indexer's), read by one statement. */
  readonly #reads = new GroupedReads<TransactionRecord>(async (ids) => {
    const rows = await this.#query<{ id: string; doc: unknown }>('get', 'SELECT id, doc FROM transactions WHERE id = ANY($1::text[])', [ids]);
    return new Map(rows.map((row) => [row.id, decode(row.doc) as TransactionRecord]));
  }, structuredClone);

  constructor(options: PostgresTransactionLogOptions) {
    this.instanceId = options.instanceId;
    this.metricsTimeZone = options.metricsTimeZone ?? 'UTC';
    this.#database = options.database;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#scanWindow = options.scanWindowRows ?? SCAN_WINDOW;
    this.#buckets = new BucketStarts(this.metricsTimeZone);
    this.#batches = new LogWriteBatches({
      pool: () => this.#openPool(),
      instanceId: this.instanceId,
      buckets: this.#buckets,
      now: this.#now,
      windowMs: options.commitWindowMs ?? COMMIT_WINDOW_MS,
      toStoreError,
    });
  }

  /** How many group commits this log has sent, and how many writes they carried (tests read it). */
  get batchStats(): BatchStats {
    return { ...this.#batches.stats };
  }

  open(): Promise<void> {
    this.#opening ??= this.#database.acquire().then(
      (pool) => {
        this.#pool = pool;
      },
      (err: unknown) => {
        this.#opening = null;
        throw err;
      },
    );
    return this.#opening;
  }

  async close(): Promise<void> {
    const opening = this.#opening;
    if (opening === null) return;
    // What is queued is written before the pool goes (a write accepted while open is not dropped by a clean stop).
    await this.#batches.drain();
    this.#opening = null;
    this.#pool = null;
    const opened = await opening.then(() => true, () => false);
    if (opened) await this.#database.release();
  }

  async insert(doc: TransactionRecord): Promise<TransactionRecord> {
    let record: TransactionRecord;
    try {
      record = toStoredTransaction(doc).stored as unknown as TransactionRecord;
    } catch (err) {
      throw toStoreError('insert', err);
    }
    await this.#batches.insert(record);
    return record;
  }

  async update(id: string, changes: TransactionChanges): Promise<TransactionRecord | null> {
    let update: CheckedChanges;
    let push: ReturnType<typeof toStoredPush>;
    try {
      const { push: toPush, ...plain } = changes;
      update = checkChanges(COLLECTION, plain);
      push = toStoredPush(toPush);
      const day = dayOfId(id);
      if (day === null) return null;
      checkSetFields(update.set, day);
    } catch (err) {
      throw toStoreError('update', err);
    }
    // The batch locks the row to its commit, so a concurrent update (another push) reads what this one wrote.
    return this.#batches.update(id, update, push);
  }

  async get(id: string): Promise<TransactionRecord | null> {
    if (dayOfId(id) === null) return null;
    return (await this.#reads.get(id)) ?? null;
  }

  async remove(id: string): Promise<boolean> {
    if (dayOfId(id) === null) return false;
    // Its search entries go in the same statement (search-schema.ts: no foreign key cascades them).
    const rows = await this.#query('remove', `WITH gone AS (DELETE FROM transactions WHERE id = $1 RETURNING id),
      ${SEARCH_ENTRIES_GONE}
      SELECT 1 FROM gone`, [id]);
    return rows.length > 0;
  }

  async page(filter: TransactionFilter, options: PageOptions): Promise<TransactionRecord[]> {
    const where = await this.#conditions('page', filter);
    const { limit, skip } = pageBounds(options);
    if (limit === 0) return [];
    if (where.test !== null) {
      return takePage(this.#scan(where), skip, limit);
    }
    const { text, values } = pageStatement(where, limit, skip);
    const rows = await this.#query<{ doc: unknown }>('page', text, values);
    return rows.map((row) => decode(row.doc) as TransactionRecord);
  }

  async count(filter: TransactionFilter): Promise<number> {
    const where = await this.#conditions('count', filter);
    if (where.test === null) {
      const rows = await this.#query<{ n: string }>('count', `SELECT count(*) AS n FROM ${where.from} WHERE ${where.sql}`, where.params.values);
      return Number(rows[0]?.n ?? 0);
    }
    let n = 0;
    for await (const _record of this.#scan(where)) n++;
    return n;
  }

  /**
   * The planner's row count of the table (kept by autovacuum's ANALYZE), counted exactly when it is small or the table
   * was never analysed (a new table: -1, or 0 before its first ANALYZE).
   */
  async estimatedCount(): Promise<{ count: number; exact: boolean }> {
    const rows = await this.#query<{ n: number }>('estimatedCount', "SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'transactions'::regclass", []);
    const estimate = Number(rows[0]?.n ?? -1);
    if (Number.isFinite(estimate) && estimate > EXACT_COUNT_UP_TO) return { count: Math.round(estimate), exact: false };
    return { count: await this.count({}), exact: true };
  }

  async countUpTo(filter: TransactionFilter, cap: number, options: CountOptions = {}): Promise<{ count: number; exact: boolean }> {
    if (!Number.isSafeInteger(cap) || cap < 0) throw new StoreError(`${COLLECTION}: countUpTo needs a cap of 0 or more, not ${String(cap)}`);
    const withinMs = options.withinMs;
    if (withinMs !== undefined && !(Number.isFinite(withinMs) && withinMs >= 0)) throw new StoreError(`${COLLECTION}: countUpTo needs withinMs of 0 or more, not ${String(withinMs)}`);
    const started = performance.now();
    if (await this.#surelyOver(filter, cap)) return { count: cap, exact: false };
    const where = await this.#conditions('countUpTo', filter);
    let n = 0;
    if (where.test === null) {
      // One row past the cap tells "more" from "exactly the cap"; the LIMIT lets a common word's count stop early.
      const values = [...where.params.values, cap + 1];
      const text = `SELECT count(*) AS n FROM (SELECT 1 FROM ${where.from} WHERE ${where.sql} LIMIT $${values.length}) AS up_to`;
      if (withinMs === undefined) {
        n = Number((await this.#query<{ n: string }>('countUpTo', text, values))[0]?.n ?? 0);
      } else {
        const left = withinMs - (performance.now() - started);
        const counted = left <= 0 ? null : await this.#countWithin(text, values, left);
        if (counted === null) return { count: Math.min(cap, await this.#estimate(where)), exact: false };
        n = counted;
      }
    } else {
      for await (const _record of this.#scan(where)) {
        if (++n > cap) break;
        if (withinMs !== undefined && performance.now() - started >= withinMs) return { count: n, exact: false };
      }
    }
    return n > cap ? { count: cap, exact: false } : { count: n, exact: true };
  }

  /**
   * The count statement under a statement timeout of what is left of the time (at least 1 ms: 0 would be none), so
   * the server stops it rather than finishing work nobody waits for; null when it ran out of time.
   */
  #countWithin(text: string, values: unknown[], ms: number): Promise<number | null> {
    return this.#transaction('countUpTo', async (client) => {
      await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(ms))}`);
      try {
        const { rows } = await client.query<{ n: string }>(text, values);
        return Number(rows[0]?.n ?? 0);
      } catch (err) {
        // The transaction is aborted; its COMMIT then only rolls it back.
        if (sqlState(err) === QUERY_CANCELED) return null;
        throw err;
      }
    });
  }

  /**
   * True when a search by words alone (no other condition: no channel list, no time bounds) is certain by the
   * statistics to match more than `cap`: every word among the most common of the index (most_common_elem_freqs, read
   * by ANALYZE from a sample), and the indexed transactions times the product of their shares at least
   * SURELY_OVER_MARGIN times the cap. Counting such a word up to the cap only ever answers "more than the cap" (an
   * estimate), after walking thousands of rows: at 2,000,000 transactions the count ran out its time budget and
   * was answered from the planner's estimate anyway (docs/BENCHMARKS.md). A channel list or a time range is not
   * guessed at: a word common overall may be rare in one channel, so those are counted as before.
   */
  async #surelyOver(filter: TransactionFilter, cap: number): Promise<boolean> {
    let normalised: NormalisedFilter;
    try {
      normalised = normaliseTransactionFilter(filter);
    } catch {
      return false; // #conditions reports it
    }
    const words = normalised.words;
    if (words === undefined || words.length === 0 || Object.keys(normalised).length !== 1) return false;
    const shares = await this.#wordShares('countUpTo');
    let share = 1;
    for (const word of words) share *= shares.get(word) ?? 0;
    if (share === 0) return false;
    const rows = await this.#query<{ n: number }>('countUpTo', "SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'search_docs'::regclass", []);
    const docs = Number(rows[0]?.n ?? -1);
    return Number.isFinite(docs) && docs > 0 && docs * share >= SURELY_OVER_MARGIN * (cap + 1);
  }

  /** The planner's estimate of the matches, from the statistics (a word's share of the indexed transactions, say). */
  async #estimate(where: LogConditions): Promise<number> {
    const rows = await this.#query<{ 'QUERY PLAN': { Plan?: { 'Plan Rows'?: number } }[] }>('countUpTo', `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${where.from} WHERE ${where.sql}`, where.params.values);
    const planned = rows[0]?.['QUERY PLAN'][0]?.Plan?.['Plan Rows'];
    return typeof planned === 'number' && Number.isFinite(planned) ? Math.max(0, Math.round(planned)) : 0;
  }

  async *stream(filter: TransactionFilter, options: PageOptions = { limit: 0 }): AsyncGenerator<TransactionRecord> {
    const where = await this.#conditions('stream', filter);
    const bounds = pageBounds(options);
    let skip = bounds.skip;
    let left = bounds.limit === 0 ? Number.POSITIVE_INFINITY : bounds.limit;
    if (where.test !== null) {
      for await (const record of this.#scan(where)) {
        if (skip > 0) {
          skip--;
          continue;
        }
        yield record;
        if (--left === 0) return;
      }
      return;
    }
    // Only the first batch skips; the next ones continue after the last row read, at the same cost however deep.
    let after: Keyset | null = null;
    while (left > 0) {
      const size = Math.min(STREAM_BATCH, left);
      const rows = await this.#batch('stream', where, after, size, skip);
      skip = 0;
      left -= rows.length;
      for (const row of rows) yield decode(row.doc) as TransactionRecord;
      const tail = rows.at(-1);
      if (tail === undefined || rows.length < size) return;
      after = { ts: Number(tail.ts), id: tail.id };
    }
  }

  /**
   * The rows whose JavaScript test passes among those the SQL keeps, newest first, read a window at a time (small
   * first, so a page of frequent matches comes quickly, then doubled up to the window) only as the consumer asks.
   */
  async *#scan(where: LogConditions): AsyncGenerator<TransactionRecord> {
    const test = where.test ?? (() => true);
    let after: Keyset | null = null;
    let window = Math.min(this.#scanWindow, 250);
    for (;;) {
      const rows = await this.#batch('scan', where, after, window, 0);
      for (const row of rows) {
        const record = decode(row.doc) as TransactionRecord;
        if (test(record)) yield record;
      }
      const tail = rows.at(-1);
      if (tail === undefined || rows.length < window) return;
      after = { ts: Number(tail.ts), id: tail.id };
      window = Math.min(this.#scanWindow, window * 2);
    }
  }

  /** One keyset batch: the `size` rows after `after` that the SQL keeps, newest first. */
  #batch(action: string, where: LogConditions, after: Keyset | null, size: number, skip: number): Promise<DocRow[]> {
    const values = [...where.params.values];
    const add = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    // The plain `ts <=` lets an index whose (ts, id) are not its first columns seek to the resume point too.
    const { ts, id } = where.order;
    const keyset = after === null ? '' : `AND ${ts} <= ${add(after.ts)} AND (${ts}, ${id}) < (${add(after.ts)}, ${add(after.id)})`;
    const text = `SELECT ${id} AS id, ${ts} AS ts, doc FROM ${where.from} WHERE ${where.sql} ${keyset} ${newestFirst(where)} LIMIT ${add(size)} OFFSET ${add(skip)}`;
    return this.#query<DocRow>(action, text, values);
  }

  failInterrupted(): Promise<number> {
    return this.failInterruptedOf(this.instanceId);
  }

  async failInterruptedOf(instanceId: string): Promise<number> {
    if (typeof instanceId !== 'string' || instanceId === '') throw new StoreError(`${COLLECTION}: an instance id must be a non-empty string`);
    const { failed, answered } = await this.#transaction('failInterrupted', async (client) => {
      // Locked in id order; a concurrent recovery of the same instance waits here, then finds these rows finished.
      const { rows } = await client.query<{ doc: unknown }>(
        "SELECT doc FROM transactions WHERE status = 'Processing' AND instance = $1 ORDER BY id FOR UPDATE",
        [instanceId],
      );
      const finished: TransactionRecord[] = [];
      let answeredCount = 0;
      for (const row of rows) {
        const record = decode(row.doc) as TransactionRecord;
        const changes = finishInterrupted(record);
        Object.assign(record, changes.set);
        if (changes.unsetStatusIfInterrupted) {
          delete record.statusIfInterrupted;
          answeredCount += 1;
        }
        await rewrite(client, record);
        finished.push(record);
      }
      await writeFinished(client, finished, this.#buckets, this.#now());
      return { failed: rows.length - answeredCount, answered: answeredCount };
    });
    if (failed + answered > 0) {
      this.#logger.warn({ failed, answered, instance: instanceId }, 'transactions interrupted by a stop of their instance were finished: Failed, or as their client was answered');
    }
    return failed + answered;
  }

  async hasChannel(channelID: string): Promise<boolean> {
    const rows = await this.#query('hasChannel', 'SELECT 1 FROM transactions WHERE channel = $1 LIMIT 1', [channelID]);
    return rows.length > 0;
  }

  days(): Promise<string[]> {
    return this.#daysBefore('days', null);
  }

  /**
   * The UTC days holding transactions (before `beforeMs` when given), oldest first: one index probe of
   * `transactions_time` per day (a loose index scan), so a year's log answers in 365 probes.
   */
  async #daysBefore(action: string, beforeMs: number | null): Promise<string[]> {
    const rows = await this.#query<{ ts: string }>(
      action,
      `WITH RECURSIVE d (ts) AS (
         SELECT (SELECT min(ts) FROM transactions)
         UNION ALL
         SELECT (SELECT min(ts) FROM transactions WHERE ts >= (d.ts / ${DAY_MS} + 1) * ${DAY_MS}) FROM d WHERE d.ts IS NOT NULL
       )
       SELECT ts FROM d WHERE ts IS NOT NULL AND ($1::bigint IS NULL OR ts < $1::bigint)`,
      [beforeMs],
    );
    return rows.map((row) => dayOf(new Date(Number(row.ts))));
  }

  async dropDaysBefore(day: string): Promise<string[]> {
    if (!isDay(day)) throw new StoreError(`${COLLECTION}: "${String(day)}" is not a day (yyyy-mm-dd)`);
    const before = Date.parse(`${day}T00:00:00Z`);
    const dropped = await this.#daysBefore('dropDaysBefore', before);
    for (;;) {
      const rows = await this.#query(
        'dropDaysBefore',
        `WITH gone AS (DELETE FROM transactions WHERE id IN (SELECT id FROM transactions WHERE ts < $1 ORDER BY ts LIMIT ${DELETE_BATCH}) RETURNING id),
         ${SEARCH_ENTRIES_GONE}
         SELECT 1 FROM gone`,
        [before],
      );
      if (rows.length < DELETE_BATCH) break;
    }
    // Hour and day metric buckets are kept as long as the transactions they count (minute buckets for less).
    await this.#query('dropDaysBefore', FOLD_METRICS_SQL, []);
    await this.#query('dropDaysBefore', "DELETE FROM transaction_metrics WHERE period IN ('hour', 'day') AND start < $1", [before]);
    if (dropped.length > 0) this.#logger.info({ days: dropped }, 'transaction days dropped by retention');
    return dropped;
  }

  async metrics(range: MetricsRange): Promise<MetricBucket[]> {
    const channels = range.channelIDs;
    if (channels !== undefined && channels.length === 0) return [];
    await this.#query('metrics', FOLD_METRICS_SQL, []);
    const rows = await this.#query<MetricRow>(
      'metrics',
      'SELECT * FROM transaction_metrics WHERE period = $1 AND start >= $2 AND start < $3 AND ($4::text[] IS NULL OR channel = ANY($4::text[])) ORDER BY start, channel',
      [range.period, range.from.getTime(), range.to.getTime(), channels ?? null],
    );
    return rows.map(toBucket);
  }

  async dropMetricsBefore(period: StoredPeriod, before: Date): Promise<number> {
    await this.#query('dropMetricsBefore', FOLD_METRICS_SQL, []);
    const rows = await this.#query('dropMetricsBefore', 'DELETE FROM transaction_metrics WHERE period = $1 AND start < $2 RETURNING 1', [period, before.getTime()]);
    return rows.length;
  }

  async finishedAfter(afterSeq: number, limit: number): Promise<FinishedTransaction[]> {
    if (!Number.isSafeInteger(afterSeq) || !Number.isSafeInteger(limit) || limit < 1) {
      throw new StoreError(`${COLLECTION}: finishedAfter needs whole numbers, not ${String(afterSeq)} and ${String(limit)}`);
    }
    await this.#transaction('finishedAfter', numberFinished);
    // The alert job reads here every few minutes: the metric counts are folded as often, even if no one reads metrics.
    await this.#query('finishedAfter', FOLD_METRICS_SQL, []);
    const rows = await this.#query<FinishedRow>('finishedAfter', 'SELECT * FROM finished_transactions WHERE seq > $1 ORDER BY seq LIMIT $2', [afterSeq, limit]);
    return rows.map(toFinished);
  }

  async lastFinishedSeq(): Promise<number> {
    await this.#transaction('lastFinishedSeq', numberFinished);
    // The counter, not max(seq): dropped entries never take their numbers back.
    const rows = await this.#query<{ last: string }>('lastFinishedSeq', 'SELECT last FROM finished_transactions_counter', []);
    return Number(rows[0]?.last ?? 0);
  }

  async dropFinishedBefore(before: Date): Promise<number> {
    const rows = await this.#query('dropFinishedBefore', 'DELETE FROM finished_transactions WHERE at < $1 RETURNING 1', [before.getTime()]);
    return rows.length;
  }

  /** The filter as SQL; a search by words alone first asks how common they are, to pick its plan (search-where.ts). */
  async #conditions(action: string, filter: TransactionFilter): Promise<LogConditions> {
    let normalised: NormalisedFilter;
    try {
      normalised = normaliseTransactionFilter(filter);
    } catch (err) {
      throw toStoreError(action, err);
    }
    const wordsAlone = normalised.words !== undefined && (normalised.keys ?? []).length === 0;
    return toLogConditions(normalised, wordsAlone ? wordsPlanOf(normalised.words ?? [], await this.#wordShares(action)) : 'collect');
  }

  /**
   * The share of indexed transactions each common word is in, from the statistics PostgreSQL keeps of the words'
   * tsvector with the GIN index `search_docs_words` on it (ANALYZE, run by autovacuum as the table grows), read again
   * at most every WORD_SHARES_MS.
   */
  async #wordShares(action: string): Promise<ReadonlyMap<string, number>> {
    const now = this.#now();
    if (this.#shares !== null && now - this.#shares.at < WORD_SHARES_MS) return this.#shares.map;
    const rows = await this.#query<{ elems: string[] | null; freqs: number[] | null }>(
      action,
      `SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs FROM pg_stats
        WHERE schemaname = current_schema() AND tablename = 'search_docs_words'`,
      [],
    );
    const map = new Map<string, number>();
    const { elems, freqs } = rows[0] ?? { elems: null, freqs: null };
    if (elems !== null && freqs !== null) elems.forEach((word, i) => map.set(word, freqs[i] ?? 0));
    this.#shares = { at: now, map };
    return map;
  }

  #openPool(): Pool {
    if (this.#pool === null) throw new StoreError(`${COLLECTION}: the transaction log is not open`);
    return this.#pool;
  }

  async #query<R>(action: string, text: string, values: unknown[]): Promise<R[]> {
    const pool = this.#openPool();
    try {
      return (await pool.query(text, values)).rows as R[];
    } catch (err) {
      throw toStoreError(action, err);
    }
  }

  /** Runs `work` in one SQL transaction on one connection: all of it commits, or none. */
  async #transaction<T>(action: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    const pool = this.#openPool();
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw toStoreError(action, err);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // A connection whose rollback fails is in an unknown state: it is discarded rather than reused.
      await client.query('ROLLBACK').catch((rollbackErr: unknown) => {
        broken = rollbackErr as Error;
      });
      throw toStoreError(action, err);
    } finally {
      client.release(broken);
    }
  }
}

/** The filter columns of a record, in the INSERT's order (without the instance and the document). */
function columns(record: TransactionRecord): unknown[] {
  return transactionColumns(record);
}

/** Writes a changed record back with its columns; the row keeps the instance that inserted it. */
async function rewrite(client: PoolClient, record: TransactionRecord): Promise<void> {
  await client.query(
    'UPDATE transactions SET ts = $2, channel = $3, client = $4, status = $5, code = $6, method = $7, path = $8, rerun = $9, doc = $10::jsonb WHERE id = $1',
    [...columns(record), encodeDoc(record)],
  );
}

function encodeDoc(record: TransactionRecord): string {
  return JSON.stringify(encode(record));
}

/**
 * The statement `page` runs for a filter that SQL decides alone, for tests that check its plan; a search by words
 * alone as `wordsPlan` (which `page` picks by how common the words are).
 */
export function transactionPageStatement(filter: TransactionFilter, options: PageOptions, wordsPlan: WordsPlan = 'collect'): { text: string; values: unknown[] } {
  const { limit, skip } = pageBounds(options);
  let where: LogConditions;
  try {
    where = toLogConditions(normaliseTransactionFilter(filter), wordsPlan);
  } catch (err) {
    throw toStoreError('page', err);
  }
  return pageStatement(where, limit, skip);
}

function pageStatement(where: LogConditions, limit: number, skip: number): { text: string; values: unknown[] } {
  const values = [...where.params.values, limit, skip];
  return { text: `SELECT doc FROM ${where.from} WHERE ${where.sql} ${newestFirst(where)} LIMIT $${values.length - 1} OFFSET $${values.length}`, values };
}

function newestFirst(where: LogConditions): string {
  return `ORDER BY ${where.order.ts} DESC, ${where.order.id} DESC`;
}

function pageBounds(options: PageOptions): { limit: number; skip: number } {
  const limit = options.limit;
  const skip = options.skip ?? 0;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new StoreError(`${COLLECTION}: limit must be a whole number of 0 or more`);
  if (!Number.isSafeInteger(skip) || skip < 0) throw new StoreError(`${COLLECTION}: skip must be a whole number of 0 or more`);
  return { limit, skip };
}

function toBucket(row: MetricRow): MetricBucket {
  return {
    channelID: row.channel,
    period: row.period,
    startTime: new Date(Number(row.start)),
    timeZone: row.zone,
    requests: Number(row.requests),
    successful: Number(row.successful),
    completed: Number(row.completed),
    completedWithErrors: Number(row.completed_errors),
    failed: Number(row.failed),
    processing: Number(row.processing),
    minResponseTime: row.min_ms,
    maxResponseTime: row.max_ms,
    totalResponseTime: row.total_ms,
  };
}

function toFinished(row: FinishedRow): FinishedTransaction {
  return {
    seq: Number(row.seq),
    id: row.id,
    channelID: row.channel,
    status: row.status,
    ...(row.code === null ? {} : { responseStatus: row.code }),
    at: new Date(Number(row.at)),
    requestTimestamp: new Date(Number(row.ts)),
    ...(row.retry === null ? {} : { autoRetryAttempt: row.retry }),
    ...(row.auto_retry ? { autoRetry: true } : {}),
    ...(row.changed ? { changed: true } : {}),
  };
}

function toStoreError(action: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  if (sqlState(err) === UNIQUE_VIOLATION && constraintOf(err) === 'transactions_pkey') return new UniqueConstraintError(COLLECTION, '_id', { cause: err });
  return wrapError(COLLECTION, action, err);
}
