/**
 * The transaction log on SQLite (better-sqlite3): one database file in WAL mode, with the fields that lists and
 * filters use as indexed columns and the whole document as JSON beside them. A newest-first page or a filtered page
 * reads only the index entries and rows it returns, so start-up time and memory do not grow with the log (measured in
 * docs/BENCHMARKS.md).
 *
 * better-sqlite3 is synchronous. Every statement here is a short indexed read or a single-row write; the only long
 * operations (export streams and retention) run in batches that yield to the event loop between them.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Logger } from 'pino';
import { StoreError } from '../store.js';
import { finishInterrupted } from '../interrupted.js';
import { normaliseTransactionFilter } from '../transaction-filter.js';
import { cachedPattern } from '../../domain/util/safe-pattern.js';
import type { PatternResult } from '../../domain/util/safe-pattern.js';
import { STREAM_BATCH } from '../transactions.js';
import type { CountOptions, FinishedTransaction, MetricsRange, PageOptions, TransactionChanges, TransactionFilter, TransactionLog, TransactionRecord } from '../transactions.js';
import { BucketStarts } from '../../domain/operations/metric-buckets.js';
import type { MetricBucket } from '../../domain/operations/metric-buckets.js';
import { STORED_PERIODS } from '../../domain/operations/metric-periods.js';
import type { StoredPeriod } from '../../domain/operations/metric-periods.js';
import type { TransactionStatus } from '../../domain/transactions/transaction-status.js';
import { checkChanges } from '../changes.js';
import type { CheckedChanges } from '../changes.js';
import { applyTransactionChanges, checkSetFields, toStoredPush, toStoredTransaction, transactionColumns } from '../transaction-documents.js';
import { dayOfId, isDay } from '../transaction-ids.js';
import { CHECKPOINT_INTERVAL_MS } from './checkpointer.js';
import { LOG_FILE, openSqliteFile, runOnFile, toStoreError as sqliteStoreError } from './database-file.js';
import type { SqliteFile } from './database-file.js';
import { decodeDocument, encodeDocument } from './documents.js';
import { GroupCommit } from './group-commit.js';
import { IntegrityScan } from './integrity-scan.js';
import { toSqlConditions } from './where.js';
import type { SqlCondition, SqlValue } from './where.js';
import { takePage } from '../take-page.js';
import type { NormalisedFilter } from '../transaction-filter.js';
import type { SearchIndex } from '../search-index.js';
import { afterDriver, chooseDriver, docidSecond, driverWindow, SearchTables, SqliteSearchIndex } from './search-index.js';
import type { DriverCursor, SearchDriver } from './search-index.js';

const COLLECTION = 'transactions';
/** Rows per retention delete: small enough to keep each pause of the event loop short (streams read STREAM_BATCH). */
const BATCH = 500;
const NEWEST_FIRST = 'ORDER BY ts DESC, id DESC';
/**
 * Rows one statement examines when a filter reads inside the stored documents (routes, orchestrations, child ids...):
 * 5,000 held the event loop 60–115 ms on the benchmark machine, 2,000 keeps each pause near 30 ms (the bench's
 * list-filters scenario), after which the event loop runs before the next window.
 */
const SCAN_WINDOW = 2000;
/** How long after open the background integrity scan starts: start-up and the console's first requests come first. */
const INTEGRITY_SCAN_AFTER_MS = 60_000;
/** Most in-flight transactions cached for their completing update; beyond it, updates read the row instead. */
const MAX_IN_FLIGHT = 10_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS transactions (
  id TEXT NOT NULL UNIQUE,
  ts INTEGER NOT NULL,
  channel TEXT NOT NULL,
  client TEXT,
  status TEXT NOT NULL,
  code INTEGER,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  rerun INTEGER NOT NULL DEFAULT 0,
  doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tx_time ON transactions (ts, id);
CREATE INDEX IF NOT EXISTS tx_channel_time ON transactions (channel, ts);
CREATE INDEX IF NOT EXISTS tx_status_time ON transactions (status, ts);
CREATE INDEX IF NOT EXISTS tx_client_time ON transactions (client, ts) WHERE client IS NOT NULL;
CREATE TABLE IF NOT EXISTS days (day TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS metrics (
  period TEXT NOT NULL,
  start INTEGER NOT NULL,
  channel TEXT NOT NULL,
  zone TEXT NOT NULL,
  requests INTEGER NOT NULL,
  successful INTEGER NOT NULL,
  completed INTEGER NOT NULL,
  completed_errors INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  processing INTEGER NOT NULL,
  min_ms REAL NOT NULL,
  max_ms REAL NOT NULL,
  total_ms REAL NOT NULL,
  PRIMARY KEY (period, start, channel)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS finished (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL,
  channel TEXT NOT NULL,
  status TEXT NOT NULL,
  code INTEGER,
  at INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  retry INTEGER,
  auto_retry INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS finished_at ON finished (at);
`;

/** A filter as the log runs it: conditions on the columns and documents, and what the search index reads first. */
interface Plan {
  columns: SqlCondition;
  document: SqlCondition | null;
  driver: SearchDriver | null;
  bounds: NormalisedFilter;
  /** With a driver: the channel and time conditions, checked on the index entry (`d`) without reading the row. */
  onEntry: SqlCondition;
  /** With a driver: the rest, checked on the transaction row; null when there is none, so the row is read only for its document. */
  onRow: SqlCondition | null;
}

/** Counts of one bucket gathered during a commit (see #pendingMetrics). */
interface PendingMetric {
  period: StoredPeriod;
  start: number;
  channel: string;
  zone: string;
  requests: number;
  successful: number;
  completed: number;
  completedErrors: number;
  failed: number;
  processing: number;
  min: number;
  max: number;
  total: number;
}

/** The pending counter each final status adds to. */
const STATUS_COUNTERS: Record<TransactionStatus, 'successful' | 'completed' | 'completedErrors' | 'failed' | 'processing'> = {
  Processing: 'processing',
  Successful: 'successful',
  Completed: 'completed',
  'Completed with error(s)': 'completedErrors',
  Failed: 'failed',
};
export interface SqliteTransactionLogOptions {
  /** The database file; its folder is created (mode 0700) when missing. */
  file: string;
  logger: Logger;
  /** How often the background worker checkpoints the write-ahead log; default CHECKPOINT_INTERVAL_MS (100 ms). */
  checkpointIntervalMs?: number;
  /** Rows one statement examines when a filter reads inside the documents; default SCAN_WINDOW (tests use a small one). */
  scanWindowRows?: number;
  /** The IANA zone metric buckets are cut in (the `timeZone` setting); default UTC. */
  metricsTimeZone?: string;
  /** The clock that stamps finished transactions; tests pass their own. */
  now?: () => number;
  /**
   * Ms after open before the paced background read of every page (integrity-scan.ts) starts; default 60,000. null:
   * none (the bench's seeding, which opens the file only to create it).
   */
  integrityScanAfterMs?: number | null;
}

interface MetricRow {
  period: StoredPeriod;
  start: number;
  channel: string;
  zone: string;
  requests: number;
  successful: number;
  completed: number;
  completed_errors: number;
  failed: number;
  processing: number;
  min_ms: number;
  max_ms: number;
  total_ms: number;
}

interface FinishedRow {
  seq: number;
  id: string;
  channel: string;
  status: TransactionStatus;
  code: number | null;
  at: number;
  ts: number;
  retry: number | null;
  auto_retry: number;
}

interface Row {
  id: string;
  ts: number;
  doc: string;
}

/** A row a scan examined: its document only when it matched (and was asked for), else null. */
interface ScanRow {
  id: string;
  ts: number;
  doc: string | null;
}

/** A row's columns in the order the insert binds them (positional: named parameters cost a third more per statement). */
type RowValues = [id: string, ts: number, channel: string, client: string | null, status: string, code: number | null, method: string, path: string, rerun: number, doc: string];

interface Statements {
  insert: Statement<RowValues>;
  /** The same values, the id last (the WHERE). */
  replace: Statement<[number, string, string | null, string, number | null, string, string, number, string, string]>;
  /** The usual completion: only the status columns and the document change, so only the status index is rewritten. */
  complete: Statement<[string, number | null, number, string, string]>;
  get: Statement<[string], Row>;
  remove: Statement<[string]>;
  addDay: Statement<[string]>;
  anyOfChannel: Statement<[string], { one: number }>;
  days: Statement<[], { day: string }>;
  /** Adds a commit's counts to a metric bucket, creating it when they are the bucket's first. */
  addMetrics: Statement;
  addFinished: Statement<[string, string, string, number | null, number, number, number | null, number]>;
}

/** The SQLite log with the search index it keeps in the same file (search-index.ts). */
export interface SqliteTransactionLog extends TransactionLog {
  readonly searchIndex: SearchIndex;
}

/** A row an index-driven scan read: its document (or '' when documents were not asked for) only when it matched. */
interface IndexedRow {
  docid: number;
  id: string | null;
  ts: number;
  doc: string | null;
}

/** Creates the SQLite transaction log; nothing touches the disk until `open()`. */
export function createSqliteTransactionLog(options: SqliteTransactionLogOptions): SqliteTransactionLog {
  const log = new SqliteLog(options.file, options.logger, options.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS, options.scanWindowRows ?? SCAN_WINDOW, options.metricsTimeZone ?? 'UTC', options.now ?? Date.now);
  log.integrityScanAfterMs = options.integrityScanAfterMs === undefined ? INTEGRITY_SCAN_AFTER_MS : options.integrityScanAfterMs;
  return log;
}

class SqliteLog implements SqliteTransactionLog {
  #db: SqliteDatabase | null = null;
  #statements: Statements | null = null;
  #search: SearchTables | null = null;
  readonly searchIndex: SearchIndex = new SqliteSearchIndex({
    write: (action, work) => this.#write(action, (_s, db) => work(this.#searchTables(), db)),
    run: (action, work) => this.#run(action, (_s, db) => work(this.#searchTables(), db)),
  });
  /** Days already in the `days` table, so an insert writes that table only on a day's first transaction. */
  #knownDays = new Set<string>();
  /**
   * Our own copies of transactions still Processing, so completing one (the second write of every request) needs no
   * read and parse of the row. Only this class holds them; callers always get objects it no longer keeps.
   */
  #inFlight = new Map<string, TransactionRecord>();
  #opening: Promise<void> | null = null;
  readonly #commits = new GroupCommit(
    () => this.#db,
    () => {
      // Nothing of the failed batch is stored, so no cached copy can be trusted, nor the counts it gathered.
      this.#inFlight.clear();
      this.#pendingMetrics.clear();
      if (this.#statements !== null) this.#knownDays = new Set(this.#statements.days.all().map((row) => row.day));
    },
    () => this.#applyMetrics(),
  );
  /**
   * Metric counts gathered from the writes of the commit being made, by bucket: written once per bucket at the end of
   * the commit (GroupCommit's beforeCommit), so a busy proxy pays for a few upserts per commit, not three per write.
   */
  readonly #pendingMetrics = new Map<string, PendingMetric>();
  #file: SqliteFile<Statements> | null = null;
  readonly #buckets: BucketStarts;
  /** Set by createSqliteTransactionLog (see SqliteTransactionLogOptions). */
  integrityScanAfterMs: number | null = null;
  #integrityTimer: NodeJS.Timeout | null = null;
  #integrityScan: IntegrityScan | null = null;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
    private readonly checkpointIntervalMs: number,
    private readonly scanWindow: number,
    readonly metricsTimeZone: string,
    private readonly now: () => number,
  ) {
    this.#buckets = new BucketStarts(metricsTimeZone);
  }

  open(): Promise<void> {
    this.#opening ??= this.#load().catch((err: unknown) => {
      this.#opening = null;
      throw err;
    });
    return this.#opening;
  }

  /** Checkpoints the write-ahead log and closes the file. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#integrityTimer !== null) clearTimeout(this.#integrityTimer);
    this.#integrityTimer = null;
    const scan = this.#integrityScan;
    this.#integrityScan = null;
    await scan?.stop();
    this.#commits.flush();
    this.#inFlight.clear();
    const file = this.#file;
    this.#db = null;
    this.#statements = null;
    this.#search = null;
    this.#opening = null;
    this.#file = null;
    await file?.close();
  }

  insert(doc: TransactionRecord): Promise<TransactionRecord> {
    let prepared: ReturnType<typeof toStoredTransaction>;
    try {
      prepared = toStoredTransaction(doc);
    } catch (err) {
      return Promise.reject(toStoreError('insert', err));
    }
    return this.#write('insert', (s) => {
      const { stored, day } = prepared;
      const record = stored as unknown as TransactionRecord;
      if (!this.#knownDays.has(day)) {
        s.addDay.run(day);
        this.#knownDays.add(day);
      }
      const row = columns(record);
      s.insert.run(...row);
      if (record.status !== 'Processing') this.#finished(s, record);
      if (record.status !== 'Processing' || this.#inFlight.size >= MAX_IN_FLIGHT) return record;
      // The caller gets a copy, as the cache keeps `record` for the update that completes it.
      this.#inFlight.set(record._id, decodeDocument<TransactionRecord>(row[DOC]));
      return record;
    });
  }

  update(id: string, changes: TransactionChanges): Promise<TransactionRecord | null> {
    let update: CheckedChanges;
    let push: ReturnType<typeof toStoredPush>;
    try {
      const { push: toPush, ...plain } = changes;
      update = checkChanges(COLLECTION, plain);
      push = toStoredPush(toPush);
      const day = dayOfId(id);
      if (day === null) return Promise.resolve(null);
      checkSetFields(update.set, day);
    } catch (err) {
      return Promise.reject(toStoreError('update', err));
    }
    return this.#write('update', (s) => {
      let record = this.#inFlight.get(id) as Record<string, unknown> | undefined;
      // Taken out first: if anything below throws, the cache must not keep a half-changed copy.
      this.#inFlight.delete(id);
      if (record === undefined) {
        const row = s.get.get(id);
        if (row === undefined) return null;
        record = decodeDocument<Record<string, unknown>>(row.doc);
      }
      const wasProcessing = record.status === 'Processing';
      // Read before the changes are applied in place: where the row sits in the indexes, status aside.
      const before = columns(record as unknown as TransactionRecord, false);
      // Appended in the same synchronous step as the read, so two appends to one transaction both land.
      const updated = applyTransactionChanges(record, update, push);
      const row = columns(updated);
      // SQLite rewrites every index on a column named in SET, changed or not. The completion sets the whole request
      // (for its body) but seldom moves it, so the indexed values are compared rather than the fields named.
      const placed = !samePlacement(before, row);
      if (placed) replaceRow(s, row);
      else completeRow(s, row);
      if (wasProcessing && updated.status !== 'Processing') this.#finished(s, updated);
      if (updated.status === 'Processing' && this.#inFlight.size < MAX_IN_FLIGHT) this.#inFlight.set(id, decodeDocument<TransactionRecord>(row[DOC]));
      return updated;
    });
  }

  get(id: string): Promise<TransactionRecord | null> {
    return this.#run('get', (s) => {
      if (dayOfId(id) === null) return null;
      const row = s.get.get(id);
      return row === undefined ? null : decodeDocument<TransactionRecord>(row.doc);
    });
  }

  remove(id: string): Promise<boolean> {
    if (dayOfId(id) === null) return Promise.resolve(false);
    return this.#write('remove', (s, db) =>
      // Its search entries go in the same savepoint: never a row without its entries, nor entries without the row.
      db.transaction(() => {
        this.#inFlight.delete(id);
        this.#searchTables().removeById(id);
        return s.remove.run(id).changes > 0;
      })(),
    );
  }

  page(filter: TransactionFilter, options: PageOptions): Promise<TransactionRecord[]> {
    let plan: Plan;
    try {
      plan = this.#conditions('page', filter);
    } catch (err) {
      return Promise.reject(toStoreError('page', err));
    }
    const { columns: where, document } = plan;
    if (plan.driver !== null) return this.#indexedPage(plan, plan.driver, options);
    if (document !== null) return this.#scannedPage(where, document, options);
    return this.#run('page', (_s, db) => {
      const { limit, skip } = pageBounds(options);
      const rows = db.prepare<SqlValue[], Row>(`SELECT doc FROM transactions WHERE ${where.sql} ${NEWEST_FIRST} LIMIT ? OFFSET ?`).all(...where.params, limit, skip);
      return rows.map((row) => decodeDocument<TransactionRecord>(row.doc));
    });
  }

  async count(filter: TransactionFilter): Promise<number> {
    const plan = this.#conditions('count', filter);
    const { columns: where, document } = plan;
    if (plan.driver !== null) {
      if (driverAlone(plan, plan.driver)) return (await this.#countEntries(plan, plan.driver, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY)).n;
      let n = 0;
      for await (const _row of this.#indexScan(plan, plan.driver, false)) n++;
      return n;
    }
    if (document === null) {
      return this.#run('count', (_s, db) => {
        const row = db.prepare<SqlValue[], { n: number }>(`SELECT COUNT(*) AS n FROM transactions WHERE ${where.sql}`).get(...where.params);
        return row?.n ?? 0;
      });
    }
    let n = 0;
    for await (const _row of this.#scan(where, document, false)) n++;
    return n;
  }

  /**
   * The span of row ids (SQLite numbers rows in insertion order; removals leave holes, so it is at most a little high),
   * counted exactly when that span is small: both ends are one B-tree descent each, a count of 10,000,000 rows seconds.
   */
  estimatedCount(): Promise<{ count: number; exact: boolean }> {
    return this.#run('estimatedCount', (_s, db) => {
      const span = db.prepare<[], { lo: number | null; hi: number | null }>('SELECT MIN(rowid) AS lo, MAX(rowid) AS hi FROM transactions').get();
      if (span === undefined || span.lo === null || span.hi === null) return { count: 0, exact: true };
      const count = span.hi - span.lo + 1;
      if (count > EXACT_COUNT_UP_TO) return { count, exact: false };
      return { count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM transactions').get()?.n ?? 0, exact: true };
    });
  }

  async countUpTo(filter: TransactionFilter, cap: number, options: CountOptions = {}): Promise<{ count: number; exact: boolean }> {
    const plan = this.#conditions('countUpTo', filter);
    if (!Number.isSafeInteger(cap) || cap < 0) throw new StoreError(`${COLLECTION}: countUpTo needs a cap of 0 or more, not ${String(cap)}`);
    const withinMs = options.withinMs;
    if (withinMs !== undefined && !(Number.isFinite(withinMs) && withinMs >= 0)) throw new StoreError(`${COLLECTION}: countUpTo needs withinMs of 0 or more, not ${String(withinMs)}`);
    // One statement cannot be stopped part way, so the time is checked between the windows and rows a search reads.
    const deadline = withinMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + withinMs;
    const { columns: where, document, driver } = plan;
    let n = 0;
    let stopped = false;
    if (driver === null && document === null) {
      n = await this.#run('countUpTo', (_s, db) => db.prepare<SqlValue[], { n: number }>(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM transactions WHERE ${where.sql} LIMIT ?)`).get(...where.params, cap + 1)?.n ?? 0);
    } else if (driver !== null && driverAlone(plan, driver)) {
      ({ n, stopped } = await this.#countEntries(plan, driver, cap + 1, deadline));
    } else {
      const rows = driver !== null ? this.#indexScan(plan, driver, false, cap + 1) : this.#scan(where, document as SqlCondition, false);
      for await (const _row of rows) {
        if (++n > cap) break;
        if (n % TIME_CHECK_ROWS === 0 && performance.now() >= deadline) {
          stopped = true;
          break;
        }
      }
    }
    if (n > cap) return { count: cap, exact: false };
    return stopped ? { count: n, exact: false } : { count: n, exact: true };
  }

  async *stream(filter: TransactionFilter, options: PageOptions = { limit: 0 }): AsyncGenerator<TransactionRecord> {
    const plan = this.#conditions('stream', filter);
    const { columns: where, document } = plan;
    const bounds = pageBounds(options);
    if (plan.driver !== null || document !== null) {
      let skip = bounds.skip;
      let left = bounds.limit === 0 ? Number.POSITIVE_INFINITY : bounds.limit;
      if (left === 0) return;
      const rows = plan.driver !== null ? this.#indexScan(plan, plan.driver, true, Math.min(skip + left, STREAM_BATCH)) : this.#scan(where, document as SqlCondition, true);
      for await (const row of rows) {
        if (skip > 0) {
          skip--;
          continue;
        }
        yield decodeDocument<TransactionRecord>(row.doc as string);
        if (--left === 0) return;
      }
      return;
    }
    // Only the first batch skips: the next ones continue after the last row read (keyset), which costs no more
    // however deep into the log they are.
    let skip = bounds.skip;
    let left = bounds.limit === 0 ? Number.POSITIVE_INFINITY : bounds.limit;
    let last: { ts: number; id: string } | null = null;
    while (left > 0) {
      const after: { ts: number; id: string } | null = last;
      const size = Math.min(STREAM_BATCH, left);
      const offset = skip;
      const rows: Row[] = await this.#run('stream', (_s, db): Row[] => {
        // `ts <= ?` is a range any (…, ts) index can seek to, and the row value one tx_time can; written as
        // `ts < ? OR (ts = ? AND id < ?)` SQLite walked the index from the newest row every batch, so an export of the
        // whole log was quadratic (260 ms a batch halfway through 300,000 rows; issue 19).
        const keyset: string = after === null ? '' : 'AND ts <= ? AND (ts, id) < (?, ?)';
        const params: SqlValue[] = after === null ? where.params : [...where.params, after.ts, after.ts, after.id];
        return db.prepare<SqlValue[], Row>(`SELECT id, ts, doc FROM transactions WHERE ${where.sql} ${keyset} ${NEWEST_FIRST} LIMIT ${size} OFFSET ${offset}`).all(...params);
      });
      skip = 0;
      left -= rows.length;
      for (const row of rows) yield decodeDocument<TransactionRecord>(row.doc);
      const tail: Row | undefined = rows.at(-1);
      if (tail === undefined || rows.length < size) return;
      last = { ts: tail.ts, id: tail.id };
      // Lets requests in between batches: an export of the whole log must not stall the proxy.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #conditions(action: string, filter: TransactionFilter): Plan {
    try {
      const { keys, words, ...rest } = normaliseTransactionFilter(filter);
      const { channels, fromMs, toMs, ...others } = rest;
      const { columns, document } = toSqlConditions(others);
      const onRow: SqlCondition | null =
        document === null ? (columns.sql === '1' ? null : columns) : { sql: `(${columns.sql}) AND (${document.sql})`, params: [...columns.params, ...document.params] };
      return { ...toSqlConditions(rest), driver: chooseDriver(keys, words), bounds: rest, onEntry: entryCondition(channels, fromMs, toMs), onRow };
    } catch (err) {
      throw toStoreError(action, err);
    }
  }

  /**
   * Counts the driver's entries, up to `most`, a window of index entries per statement: what a filter with nothing to
   * check beyond one key or the words counts (a common word's 10,000 matches in a few milliseconds, never a row read).
   */
  /** Index entries counted a window at a time, up to `most`; `stopped` when the deadline came first. */
  async #countEntries(plan: Plan, driver: SearchDriver, most: number, deadline: number): Promise<{ n: number; stopped: boolean }> {
    let n = 0;
    let cursor: DriverCursor | null = null;
    let offset = 0;
    for (;;) {
      // Smaller windows when time is short, so that the clock is looked at more often.
      const size = Math.min(deadline === Number.POSITIVE_INFINITY ? COUNT_WINDOW : TIMED_COUNT_WINDOW, most - n);
      if (size <= 0) return { n, stopped: false };
      if (cursor !== null && performance.now() >= deadline) return { n, stopped: true };
      const win = driverWindow(driver, plan.bounds, cursor, size);
      const rows = await this.#run('count', (_s, db) => db.prepare<SqlValue[], { docid: number; ts: number | null }>(win.sql).all(...win.params));
      const last: DriverCursor | null = cursor;
      // Windows go by offset: matches written above since the last window are counted already.
      n += last !== null ? rows.filter((row) => row.docid < last.docid).length : rows.length;
      const tail = rows.at(-1);
      if (tail === undefined || rows.length < size) return { n: Math.min(n, most), stopped: false };
      offset += rows.length;
      cursor = { ts: tail.ts ?? 0, docid: tail.docid, offset };
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async #indexedPage(plan: Plan, driver: SearchDriver, options: PageOptions): Promise<TransactionRecord[]> {
    const { limit, skip } = pageBounds(options);
    return takePage(this.#indexScan(plan, driver, true, skip + limit + 1), skip, limit, (row) => decodeDocument<TransactionRecord>(row.doc as string));
  }

  /**
   * The matches of a filter with keys or words, newest first, read from the search index (search-index.ts): a window
   * of the driver's entries per statement (a key's range, or the full-text matches by docid), each checked against
   * the rest of the filter on its transaction row, with a pause for the event loop between windows. A page reads only
   * as far as it needs; the windows bound each pause however many transactions a patient or a word has.
   *
   * The driver's order is by request second (docid order, for a key's terms as for the words); rows of one second are
   * put in the log's order (time, then id) before they are yielded, so every engine pages alike.
   */
  async *#indexScan(plan: Plan, driver: SearchDriver, withDocs: boolean, wanted = 250): AsyncGenerator<IndexedRow> {
    const { onEntry, onRow } = plan;
    const checks = afterDriver(driver);
    const bounds = { ...(plan.bounds.fromMs === undefined ? {} : { fromMs: plan.bounds.fromMs }), ...(plan.bounds.toMs === undefined ? {} : { toMs: plan.bounds.toMs }) };
    const groupOf = (row: IndexedRow): number => docidSecond(row.docid);
    const order = 'ORDER BY d.docid DESC';
    const picked = withDocs ? 'doc' : "''";
    // Entries exist only for stored transactions (written after checking, removed in the same commit), so a count with
    // nothing to check on the row never reads one: a count of a common word reads the index alone.
    const rowPart = onRow === null && !withDocs ? { sql: "''", params: [] } : { sql: `(SELECT CASE WHEN ${onRow?.sql ?? '1'} THEN ${picked} END FROM transactions WHERE transactions.id = d.id)`, params: onRow?.params ?? [] };
    let cursor: DriverCursor | null = null;
    let offset = 0;
    // The first window is what the caller wants (a page's rows reads little more than the page, its rows being
    // scattered over the file, each a read from disk when cold); doubled up to the scan window after that.
    let window = Math.max(1, Math.min(this.scanWindow, wanted));
    let group: number | null = null;
    let held: IndexedRow[] = [];
    const release = (): IndexedRow[] => {
      const out = held.sort((a, b) => b.ts - a.ts || ((b.id as string) < (a.id as string) ? -1 : (b.id as string) > (a.id as string) ? 1 : 0));
      held = [];
      return out;
    };
    for (;;) {
      const size = window;
      const win = driverWindow(driver, bounds, cursor, size);
      const rows: IndexedRow[] = await this.#run('search', (_s, db): IndexedRow[] =>
        db
          .prepare<SqlValue[], IndexedRow>(
            `SELECT d.docid AS docid, d.id AS id, d.ts AS ts,
              CASE WHEN d.id IS NOT NULL AND ${onEntry.sql} AND ${checks.sql} THEN ${rowPart.sql} END AS doc
            FROM (SELECT w.docid AS docid, COALESCE(w.ts, sd.ts, 0) AS ts, sd.id AS id, sd.channel AS channel FROM (${win.sql}) AS w LEFT JOIN search_docs AS sd ON sd.docid = w.docid) AS d
            ${order}`,
          )
          .all(...onEntry.params, ...checks.params, ...rowPart.params, ...win.params),
      );
      const seen: DriverCursor | null = cursor;
      for (const row of rows) {
        // Written above since the last window (text windows go by offset): read already.
        if (seen !== null && row.docid >= seen.docid) continue;
        const rowGroup = groupOf(row);
        if (rowGroup !== group) {
          yield* release();
          group = rowGroup;
        }
        if (row.doc !== null && row.id !== null) held.push(row);
      }
      const tail: IndexedRow | undefined = rows.at(-1);
      if (tail === undefined || rows.length < size) break;
      offset += rows.length;
      cursor = { ts: tail.ts, docid: tail.docid, offset };
      window = Math.min(this.scanWindow, window * 2);
      await new Promise((resolve) => setImmediate(resolve));
    }
    yield* release();
  }

  async #scannedPage(where: SqlCondition, document: SqlCondition, options: PageOptions): Promise<TransactionRecord[]> {
    const { limit, skip } = pageBounds(options);
    return takePage(this.#scan(where, document, true), skip, limit, (row) => decodeDocument<TransactionRecord>(row.doc as string));
  }

  /**
   * The rows matching a filter that reads inside the documents, newest first. Each statement examines at most
   * SCAN_WINDOW rows of those the column conditions keep (through their index) and yields to the event loop before
   * the next, so however long the log, no single pause of the proxy is longer than one window (docs/BENCHMARKS.md).
   * A page stops as soon as it is full. `doc` is read only for the rows that match, and only when `withDocs`.
   */
  async *#scan(where: SqlCondition, document: SqlCondition, withDocs: boolean): AsyncGenerator<ScanRow> {
    let after: { ts: number; id: string } | null = null;
    // Small first, so a page of frequent matches is found quickly; doubled up to the window for long scans.
    let window = Math.min(this.scanWindow, 250);
    for (;;) {
      const last: { ts: number; id: string } | null = after;
      const size = window;
      const rows: ScanRow[] = await this.#run('scan', (_s, db): ScanRow[] => {
        // Seekable, as in stream() above.
        const keyset: string = last === null ? '' : 'AND ts <= ? AND (ts, id) < (?, ?)';
        const params: SqlValue[] = [...document.params, ...where.params, ...(last === null ? [] : [last.ts, last.ts, last.id])];
        const picked = withDocs ? 'CASE WHEN m THEN doc END AS doc' : 'CASE WHEN m THEN \'\' END AS doc';
        return db
          .prepare<SqlValue[], ScanRow>(
            `SELECT id, ts, ${picked} FROM (SELECT id, ts, doc, (${document.sql}) AS m FROM (SELECT id, ts, doc FROM transactions WHERE ${where.sql} ${keyset} ${NEWEST_FIRST} LIMIT ${size})) ${NEWEST_FIRST}`,
          )
          .all(...params);
      });
      for (const row of rows) if (row.doc !== null) yield row;
      const tail: ScanRow | undefined = rows.at(-1);
      if (tail === undefined || rows.length < size) return;
      after = { ts: tail.ts, id: tail.id };
      window = Math.min(this.scanWindow, window * 2);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  failInterrupted(): Promise<number> {
    return this.#run('failInterrupted', (s, db) => {
      this.#inFlight.clear();
      const { failed, answered } = db.transaction(() => {
        const rows = db.prepare<[], Row>("SELECT id, ts, doc FROM transactions WHERE status = 'Processing'").all();
        let answeredCount = 0;
        for (const row of rows) {
          const record = decodeDocument<TransactionRecord>(row.doc);
          const changes = finishInterrupted(record);
          Object.assign(record, changes.set);
          if (changes.unsetStatusIfInterrupted) {
            delete record.statusIfInterrupted;
            answeredCount += 1;
          }
          replaceRow(s, columns(record));
          this.#finished(s, record);
        }
        this.#applyMetrics();
        return { failed: rows.length - answeredCount, answered: answeredCount };
      })();
      if (failed + answered > 0) {
        this.logger.warn({ failed, answered }, 'transactions interrupted by the previous stop were finished: Failed, or as their client was answered');
      }
      return failed + answered;
    });
  }

  hasChannel(channelID: string): Promise<boolean> {
    return this.#run('hasChannel', (s) => s.anyOfChannel.get(channelID) !== undefined);
  }

  days(): Promise<string[]> {
    return this.#run('days', (s) => s.days.all().map((row) => row.day));
  }

  async dropDaysBefore(day: string): Promise<string[]> {
    if (!isDay(day)) throw new StoreError(`${COLLECTION}: "${String(day)}" is not a day (yyyy-mm-dd)`);
    const before = Date.parse(`${day}T00:00:00Z`);
    for (const [id, record] of this.#inFlight) if (record.request.timestamp.getTime() < before) this.#inFlight.delete(id);
    for (;;) {
      // Each batch takes the search entries of the same days in the same commit (search-index.ts).
      const removed = await this.#run('dropDaysBefore', (_s, db) =>
        db.transaction(() => {
          const entries = this.#searchTables().removeBefore(before, BATCH);
          const rows = db.prepare<[number], unknown>(`DELETE FROM transactions WHERE rowid IN (SELECT rowid FROM transactions WHERE ts < ? LIMIT ${BATCH})`).run(before).changes;
          return Math.max(entries, rows);
        })(),
      );
      if (removed < BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return this.#run('dropDaysBefore', (_s, db) => {
      const dropped = db.prepare<[string], { day: string }>('SELECT day FROM days WHERE day < ? ORDER BY day').all(day).map((row) => row.day);
      db.prepare('DELETE FROM days WHERE day < ?').run(day);
      // Hour and day metric buckets are kept as long as the transactions they count (minute buckets for less).
      db.prepare("DELETE FROM metrics WHERE period IN ('hour', 'day') AND start < ?").run(before);
      for (const old of dropped) this.#knownDays.delete(old);
      // Returns the freed pages to the file system; without it the file keeps its largest size forever.
      db.pragma('incremental_vacuum');
      if (dropped.length > 0) this.logger.info({ days: dropped }, 'transaction days dropped by retention');
      return dropped;
    });
  }

  /**
   * A transaction reached its first final status in the write being committed: its finished entry, and its metric
   * buckets (by request time, and only when it has a response, as OpenHIM counts), in the same commit.
   */
  #finished(s: Statements, record: TransactionRecord): void {
    const requestMs = record.request.timestamp.getTime();
    s.addFinished.run(record._id, record.channelID, record.status, record.response?.status ?? null, this.now(), requestMs, record.autoRetryAttempt ?? null, record.autoRetry === true ? 1 : 0);
    const response = record.response;
    if (response === undefined) return;
    // A clock stepped back between request and response would give a negative time: it counts as instant.
    const ms = Math.max(0, response.timestamp.getTime() - requestMs);
    const counter = STATUS_COUNTERS[record.status];
    for (const period of STORED_PERIODS) {
      const start = this.#buckets.startOf(requestMs, period);
      const key = `${period} ${start} ${record.channelID}`;
      let pending = this.#pendingMetrics.get(key);
      if (pending === undefined) {
        pending = { period, start, channel: record.channelID, zone: this.metricsTimeZone, requests: 0, successful: 0, completed: 0, completedErrors: 0, failed: 0, processing: 0, min: ms, max: ms, total: 0 };
        this.#pendingMetrics.set(key, pending);
      }
      pending.requests += 1;
      pending[counter] += 1;
      if (ms < pending.min) pending.min = ms;
      if (ms > pending.max) pending.max = ms;
      pending.total += ms;
    }
  }

  /** Writes the metric counts gathered since the last call, inside the caller's transaction. */
  #applyMetrics(): void {
    if (this.#pendingMetrics.size === 0) return;
    const statements = this.#statements;
    if (statements === null) throw new StoreError(`${COLLECTION}: the transaction log is not open`);
    try {
      for (const pending of this.#pendingMetrics.values()) statements.addMetrics.run(pending);
    } finally {
      this.#pendingMetrics.clear();
    }
  }

  metrics(range: MetricsRange): Promise<MetricBucket[]> {
    return this.#run('metrics', (_s, db) => {
      const channels = range.channelIDs;
      if (channels !== undefined && channels.length === 0) return [];
      const inChannels = channels === undefined ? '' : `AND channel IN (${channels.map(() => '?').join(', ')})`;
      const rows = db
        .prepare<SqlValue[], MetricRow>(`SELECT * FROM metrics WHERE period = ? AND start >= ? AND start < ? ${inChannels} ORDER BY start, channel`)
        .all(range.period, range.from.getTime(), range.to.getTime(), ...(channels ?? []));
      return rows.map(toBucket);
    });
  }

  async dropMetricsBefore(period: StoredPeriod, before: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await this.#run('dropMetricsBefore', (_s, db) =>
        db.prepare<[string, number], unknown>(`DELETE FROM metrics WHERE (period, start, channel) IN (SELECT period, start, channel FROM metrics WHERE period = ? AND start < ? LIMIT ${BATCH})`).run(period, before.getTime()).changes,
      );
      total += removed;
      if (removed < BATCH) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  finishedAfter(afterSeq: number, limit: number): Promise<FinishedTransaction[]> {
    if (!Number.isSafeInteger(afterSeq) || !Number.isSafeInteger(limit) || limit < 1) {
      return Promise.reject(new StoreError(`${COLLECTION}: finishedAfter needs whole numbers, not ${String(afterSeq)} and ${String(limit)}`));
    }
    return this.#run('finishedAfter', (_s, db) =>
      db.prepare<[number, number], FinishedRow>('SELECT * FROM finished WHERE seq > ? ORDER BY seq LIMIT ?').all(afterSeq, limit).map(toFinished),
    );
  }

  lastFinishedSeq(): Promise<number> {
    return this.#run('lastFinishedSeq', (_s, db) => db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM finished').get()?.seq ?? 0);
  }

  async dropFinishedBefore(before: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await this.#run('dropFinishedBefore', (_s, db) =>
        db.prepare<[number], unknown>(`DELETE FROM finished WHERE seq IN (SELECT seq FROM finished WHERE at < ? LIMIT ${BATCH})`).run(before.getTime()).changes,
      );
      total += removed;
      if (removed < BATCH) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async #load(): Promise<void> {
    const opened = await openSqliteFile<Statements>({
      file: this.file,
      collection: COLLECTION,
      what: 'transaction log',
      ...LOG_FILE,
      checkpoints: { intervalMs: this.checkpointIntervalMs, logger: this.logger },
      prepare: (db) => {
        db.pragma('foreign_keys = OFF');
        // No quick_check here: it reads every page, seconds per GB, and a year's log is many GB (issue 19). A file that
        // is not a database fails on the first read above; damage inside one page fails the statement that reads it.
        db.exec(SCHEMA);
        db.function('regexp', { deterministic: true }, regexpFunction());
        const statements = prepare(db);
        // Created here when missing: a data folder from before the search index upgrades in place.
        this.#search = new SearchTables(db);
        if (this.#search.upgraded) {
          this.logger.warn('the search index was of an earlier layout: it was dropped and is rebuilt in the background from the stored bodies (newest first)');
        }
        this.#knownDays = new Set(statements.days.all().map((row) => row.day));
        return statements;
      },
    });
    this.#statements = opened.prepared;
    this.#db = opened.db;
    this.#file = opened;
    const after = this.integrityScanAfterMs;
    if (after !== null) {
      this.#integrityTimer = setTimeout(() => {
        this.#integrityTimer = null;
        this.#integrityScan = new IntegrityScan({ file: this.file, logger: this.logger });
      }, after);
      // The scan is a courtesy: it must never keep a stopping service alive.
      this.#integrityTimer.unref();
    }
  }

  /** Queues a write for the next group commit (see group-commit.ts); errors become StoreErrors. */
  #write<T>(action: string, work: (statements: Statements, db: SqliteDatabase) => T): Promise<T> {
    const db = this.#db;
    const statements = this.#statements;
    if (db === null || statements === null) return Promise.reject(new StoreError(`${COLLECTION}: the transaction log is not open`));
    return this.#commits.run(() => work(statements, db)).catch((err: unknown) => {
      throw toStoreError(action, err);
    });
  }

  #searchTables(): SearchTables {
    if (this.#search === null) throw new StoreError(`${COLLECTION}: the transaction log is not open`);
    return this.#search;
  }

  /** Runs one synchronous unit of work and maps SQLite's errors to StoreErrors. */
  #run<T>(action: string, work: (statements: Statements, db: SqliteDatabase) => T): Promise<T> {
    return runOnFile(this.#statements, this.#db, COLLECTION, 'the transaction log is not open', action, work);
  }

}

function prepare(db: SqliteDatabase): Statements {
  return {
    insert: db.prepare('INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'),
    complete: db.prepare('UPDATE transactions SET status = ?, code = ?, rerun = ?, doc = ? WHERE id = ?'),
    replace: db.prepare('UPDATE transactions SET ts = ?, channel = ?, client = ?, status = ?, code = ?, method = ?, path = ?, rerun = ?, doc = ? WHERE id = ?'),
    get: db.prepare<[string], Row>('SELECT id, ts, doc FROM transactions WHERE id = ?'),
    remove: db.prepare<[string]>('DELETE FROM transactions WHERE id = ?'),
    addDay: db.prepare<[string]>('INSERT OR IGNORE INTO days (day) VALUES (?)'),
    anyOfChannel: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM transactions WHERE channel = ? LIMIT 1'),
    days: db.prepare<[], { day: string }>('SELECT day FROM days ORDER BY day'),
    addMetrics: db.prepare(`INSERT INTO metrics (period, start, channel, zone, requests, successful, completed, completed_errors, failed, processing, min_ms, max_ms, total_ms)
      VALUES (@period, @start, @channel, @zone, @requests, @successful, @completed, @completedErrors, @failed, @processing, @min, @max, @total)
      ON CONFLICT (period, start, channel) DO UPDATE SET requests = requests + excluded.requests, successful = successful + excluded.successful,
        completed = completed + excluded.completed, completed_errors = completed_errors + excluded.completed_errors, failed = failed + excluded.failed,
        processing = processing + excluded.processing, min_ms = MIN(min_ms, excluded.min_ms), max_ms = MAX(max_ms, excluded.max_ms),
        total_ms = total_ms + excluded.total_ms`),
    addFinished: db.prepare('INSERT INTO finished (id, channel, status, code, at, ts, retry, auto_retry) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
  };
}

function toBucket(row: MetricRow): MetricBucket {
  return {
    channelID: row.channel,
    period: row.period,
    startTime: new Date(row.start),
    timeZone: row.zone,
    requests: row.requests,
    successful: row.successful,
    completed: row.completed,
    completedWithErrors: row.completed_errors,
    failed: row.failed,
    processing: row.processing,
    minResponseTime: row.min_ms,
    maxResponseTime: row.max_ms,
    totalResponseTime: row.total_ms,
  };
}

function toFinished(row: FinishedRow): FinishedTransaction {
  return {
    seq: row.seq,
    id: row.id,
    channelID: row.channel,
    status: row.status,
    ...(row.code === null ? {} : { responseStatus: row.code }),
    at: new Date(row.at),
    requestTimestamp: new Date(row.ts),
    ...(row.retry === null ? {} : { autoRetryAttempt: row.retry }),
    ...(row.auto_retry === 1 ? { autoRetry: true } : {}),
  };
}

/** Where the document is in RowValues. */
const DOC = 9;

/** Whether two rows have the same indexed values other than the status (see Statements.complete). */
function samePlacement(a: RowValues, b: RowValues): boolean {
  // ts, channel, client, method and path.
  return a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && a[6] === b[6] && a[7] === b[7];
}

/** The indexed columns of a record, plus the document itself unless `withDocument` is false (then ''). */
function columns(record: TransactionRecord, withDocument = true): RowValues {
  const [id, ts, channel, client, status, code, method, path, rerun] = transactionColumns(record);
  // SQLite has no boolean: the re-run flag is 1 or 0.
  return [id, ts, channel, client, status, code, method, path, rerun ? 1 : 0, withDocument ? encodeDocument(record) : ''];
}

/** Rewrites the status columns and the document only (see Statements.complete). */
function completeRow(s: Statements, row: RowValues): void {
  const [id, , , , status, code, , , rerun, doc] = row;
  s.complete.run(status, code, rerun, doc, id);
}

/** Rewrites every column of the row (an update that may move it in the indexes). */
function replaceRow(s: Statements, row: RowValues): void {
  const [id, ts, channel, client, status, code, method, path, rerun, doc] = row;
  s.replace.run(ts, channel, client, status, code, method, path, rerun, doc, id);
}

/** Index entries one counting statement reads (entries alone are small: 20,000 read in a few milliseconds). */
const COUNT_WINDOW = 20_000;
/** Below this many rows `estimatedCount` counts them (a few milliseconds). */
const EXACT_COUNT_UP_TO = 200_000;
/** Index entries a count bounded in time (`countUpTo`'s `withinMs`) reads between looks at the clock. */
const TIMED_COUNT_WINDOW = 500;
/** Rows a count tested one by one reads between looks at the clock (`countUpTo`'s `withinMs`). */
const TIME_CHECK_ROWS = 100;

/**
 * Whether the driver's entries alone answer a count: nothing else to check (the driver's time bounds are to the
 * second, so a search with a time range checks each entry).
 */
function driverAlone(plan: Plan, driver: SearchDriver): boolean {
  // The channels are on the entry's transaction; the driver's time bounds are to the second.
  if (plan.onRow !== null || plan.bounds.channels !== undefined || afterDriver(driver).sql !== '1') return false;
  return plan.bounds.fromMs === undefined && plan.bounds.toMs === undefined;
}

/** The channel and time conditions on an index entry (`d` in the index-driven scan). */
function entryCondition(channels: readonly string[] | undefined, fromMs: number | undefined, toMs: number | undefined): SqlCondition {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  // An empty list (a user who may see no channel) matches nothing, as in where.ts.
  if (channels !== undefined) parts.push(channels.length === 0 ? '0' : `d.channel IN (${channels.map(() => '?').join(', ')})`);
  params.push(...(channels ?? []));
  if (fromMs !== undefined) {
    parts.push('d.ts >= ?');
    params.push(fromMs);
  }
  if (toMs !== undefined) {
    parts.push('d.ts <= ?');
    params.push(toMs);
  }
  return { sql: parts.length === 0 ? '1' : `(${parts.join(' AND ')})`, params };
}

function pageBounds(options: PageOptions): { limit: number; skip: number } {
  const limit = options.limit;
  const skip = options.skip ?? 0;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new StoreError(`${COLLECTION}: limit must be a whole number of 0 or more`);
  if (!Number.isSafeInteger(skip) || skip < 0) throw new StoreError(`${COLLECTION}: skip must be a whole number of 0 or more`);
  return { limit, skip };
}

/** The SQL `regexp(pattern, value)` function, in linear time (safe-pattern.ts); a refused pattern matches nothing. */
function regexpFunction(): (pattern: unknown, value: unknown) => number {
  let source = '';
  let compiled: PatternResult | null = null;
  return (pattern, value) => {
    if (typeof pattern !== 'string' || typeof value !== 'string') return 0;
    if (compiled === null || pattern !== source) {
      compiled = cachedPattern(pattern);
      source = pattern;
    }
    return compiled.ok && compiled.pattern.test(value) ? 1 : 0;
  };
}

function toStoreError(action: string, err: unknown): StoreError {
  return sqliteStoreError(COLLECTION, action, err);
}

