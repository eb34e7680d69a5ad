/**
 * Group commit for the transaction log on PostgreSQL (issue 38). Every request writes its transaction twice (the
 * Processing insert, then its completion, with the finished entry and metric counts beside it); alone, each write is
 * its own round trips and its own commit (its own wait for the WAL to reach the disk). Here the writes of the
 * transactions in flight wait together and go as one batch: one multi-row statement per kind (rows inserted from
 * `unnest`, rows rewritten from `unnest`, finished entries and metric counts appended from `unnest`), one commit.
 *
 * - A write is sent when the batch before it has committed, or when its window (`commitWindowMs`) has passed,
 *   whichever is later; a batch holds at most MAX_ROWS writes. At most one batch is in flight, so under load each
 *   batch carries everything that arrived while the previous one was committing.
 * - Every caller's promise settles only after its batch's COMMIT: nothing is acknowledged before it is stored.
 * - A batch that fails as a whole (the connection lost, the server gone) rejects every caller in it with the error
 *   its write would have had alone. One bad row (an id stored twice, a value PostgreSQL refuses) fails the whole
 *   statement: the batch is rolled back and its writes are tried again one by one, so only that row's caller fails.
 * - A batch has `storage.postgres.writeTimeoutMs` from its wait for a connection to its COMMIT (deadline.ts): a
 *   server that stops answering without closing its connections (frozen) fails it as a lost connection would, so no
 *   caller waits much longer than twice that. Its connection is destroyed, never reused. What the server had already
 *   received it may still run when it resumes: such inserts are in doubt, and once a later batch commits and the
 *   destroyed connections' backends have ended, those stored after all are finished Failed (their senders were
 *   refused). A completion is one BEGIN...COMMIT, rolled back unless its COMMIT had gone out.
 * - Completions only append finished entries and counts (transaction-log-finish.ts), so a batch never waits for
 *   another instance's commit, and `seq` still follows commit order: entries are numbered by readers after they
 *   commit, batch or not.
 */
import type { Pool, PoolClient } from 'pg';
import type { BucketStarts } from '../../domain/operations/metric-buckets.js';
import type { CheckedChanges } from '../changes.js';
import type { StoreError } from '../store.js';
import { applyTransactionChanges, transactionColumns } from '../transaction-documents.js';
import type { TransactionRecord } from '../transactions.js';
import { Deadline, isTimeout, writeBoundsOf } from './deadline.js';
import { decode, encode } from './documents.js';
import { sqlState } from './errors.js';
import { changedParts, finishedParts } from './transaction-log-finish.js';
import { indexedSnapshot, needsReindexing } from '../../domain/transactions/search-refresh.js';

/** Writes per batch: each is about a dozen array elements, so one statement stays far below what a message holds. */
export const MAX_ROWS = 500;

interface Insert {
  kind: 'insert';
  record: TransactionRecord;
  resolve: () => void;
  reject: (err: StoreError) => void;
}

interface Update {
  kind: 'update';
  id: string;
  update: CheckedChanges;
  push: { routes: unknown[]; orchestrations: unknown[] };
  resolve: (record: TransactionRecord | null) => void;
  reject: (err: StoreError) => void;
}

type Write = Insert | Update;

export interface LogBatchesOptions {
  /** The open pool; throws a StoreError when the log is not open. */
  pool: () => Pool;
  instanceId: string;
  buckets: BucketStarts;
  now: () => number;
  /** How long the first write of a batch waits for others, in milliseconds; 0 sends on the next turn of the event loop. */
  windowMs: number;
  /** A failure as the caller of `action` would have had it alone. */
  toStoreError: (action: 'insert' | 'update', err: unknown) => StoreError;
}

/** What one batch did, for the tests and the logs: how many writes shared its commit. */
export interface BatchStats {
  batches: number;
  writes: number;
}

export class LogWriteBatches {
  readonly stats: BatchStats = { batches: 0, writes: 0 };
  readonly #options: LogBatchesOptions;
  #queue: Write[] = [];
  #inFlight: Promise<void> | null = null;
  #timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /** Inserts whose batch ran out of time once sent: stored or not, as the server decides when it runs again. */
  #inDoubt: InDoubt[] = [];
  #resolving = false;

  constructor(options: LogBatchesOptions) {
    this.#options = options;
  }

  /** Inserts a checked, storable record; resolves once its batch has committed. */
  insert(record: TransactionRecord): Promise<void> {
    return new Promise((resolve, reject) => this.#add({ kind: 'insert', record, resolve, reject }));
  }

  /** Applies checked changes to the stored record; resolves with it once committed, or null when there is none. */
  update(id: string, update: CheckedChanges, push: Update['push']): Promise<TransactionRecord | null> {
    return new Promise((resolve, reject) => this.#add({ kind: 'update', id, update, push, resolve, reject }));
  }

  /** Sends what is waiting now and resolves when nothing is left in flight (before the pool is closed). */
  async drain(): Promise<void> {
    this.#clearTimer();
    while (this.#inFlight !== null || this.#queue.length > 0) {
      if (this.#inFlight === null) this.#send();
      await this.#inFlight;
    }
  }

  #add(write: Write): void {
    this.#queue.push(write);
    if (this.#inFlight !== null) return;
    if (this.#queue.length >= MAX_ROWS) {
      this.#clearTimer();
      this.#send();
    } else if (this.#timer === null) {
      const send = () => {
        this.#timer = null;
        if (this.#inFlight === null) this.#send();
      };
      this.#timer = this.#options.windowMs === 0 ? setImmediate(send) : setTimeout(send, this.#options.windowMs);
    }
  }

  #clearTimer(): void {
    if (this.#timer === null) return;
    clearTimeout(this.#timer as NodeJS.Timeout);
    clearImmediate(this.#timer as NodeJS.Immediate);
    this.#timer = null;
  }

  #send(): void {
    const batch = this.#take();
    if (batch.length === 0) return;
    this.stats.batches += 1;
    this.stats.writes += batch.length;
    // #write settles every caller of its batch itself; the next batch goes as soon as this one is done.
    this.#inFlight = this.#write(batch).then(() => {
      this.#inFlight = null;
      if (this.#queue.length > 0) this.#send();
    });
  }

  /**
   * The next batch, in arrival order: up to MAX_ROWS, and stopping before an update of a transaction the batch
   * inserts (the update reads its row before the insert's statement runs), which goes in the next one.
   */
  #take(): Write[] {
    const inserted = new Set<string>();
    let n = 0;
    for (const write of this.#queue) {
      if (n === MAX_ROWS) break;
      if (write.kind === 'insert') inserted.add(write.record._id);
      else if (inserted.has(write.id)) break;
      n += 1;
    }
    return this.#queue.splice(0, n);
  }

  /** Settles every caller of `batch`; resolves with the error that failed it as a whole, if any. */
  async #write(batch: readonly Write[]): Promise<unknown> {
    let outcome: Outcome;
    try {
      outcome = await this.#commit(batch);
    } catch (err) {
      if (batch.length > 1 && oneRowFailed(err)) {
        // Alone, in order (two writes of one transaction keep their order): each fails only if it is the bad one.
        // Should the server stop answering meanwhile, the rest fail at once rather than each after its own bound.
        for (const [i, write] of batch.entries()) {
          const failed = await this.#write([write]);
          if (isTimeout(failed)) {
            for (const rest of batch.slice(i + 1)) rest.reject(this.#options.toStoreError(rest.kind, failed));
            break;
          }
        }
        return undefined;
      }
      const cause = err instanceof RowError ? err.error : err;
      for (const write of batch) write.reject(this.#options.toStoreError(write.kind, cause));
      return cause;
    }
    batch.forEach((write, i) => {
      if (write.kind === 'insert') write.resolve();
      else write.resolve(outcome.updated[i] ?? null);
    });
    // The server answers again: inserts left in doubt by a timeout can be settled now.
    if (this.#inDoubt.length > 0) void this.#resolveDoubts();
    return undefined;
  }

  /**
   * A batch timed out after its connection was taken: its statements may already sit in the server's socket, and a
   * frozen server runs them when it runs again (an insert commits then, though its sender was refused). Its inserts
   * are kept, with the backend that may still write them.
   */
  #doubt(batch: readonly Write[], client: PoolClient): void {
    const ids = batch.filter((write): write is Insert => write.kind === 'insert').map((write) => write.record._id);
    const pid = (client as PoolClient & { processID: number | null }).processID;
    if (ids.length > 0 && pid !== null) this.#inDoubt.push({ ids, pid });
  }

  /**
   * Finishes as Failed (their senders were refused) the inserts in doubt that the server did store, once the backends
   * that could still store them have ended (a destroyed connection's backend runs what reached it, then ends).
   * A failure leaves them for the next committed batch; a stop leaves them to start-up recovery.
   */
  async #resolveDoubts(): Promise<void> {
    if (this.#resolving) return;
    this.#resolving = true;
    const doubts = this.#inDoubt.splice(0);
    try {
      const pool = this.#options.pool();
      const pids = doubts.map((doubt) => doubt.pid);
      for (let tries = 0; ; tries += 1) {
        const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND application_name = 'junction'", [pids]);
        if ((rows[0]?.n ?? 0) === 0) break;
        if (tries === DOUBT_TRIES) throw new Error('backends of timed-out connections still running');
        await new Promise((resolve) => setTimeout(resolve, DOUBT_PAUSE_MS));
      }
      const ids = doubts.flatMap((doubt) => doubt.ids);
      const { rows } = await pool.query<{ id: string }>("SELECT id FROM transactions WHERE id = ANY($1::text[]) AND status = 'Processing'", [ids]);
      for (const { id } of rows) {
        await this.update(id, { set: { status: 'Failed', error: { message: IN_DOUBT } }, unset: [] }, { routes: [], orchestrations: [] });
      }
    } catch {
      this.#inDoubt.unshift(...doubts);
    } finally {
      this.#resolving = false;
    }
  }

  /**
   * Writes the batch in one SQL transaction (one statement and no BEGIN when it only inserts) and commits it, all
   * within the pool's write bound (deadline.ts): a server that stops answering fails the batch as a lost one would.
   */
  async #commit(batch: readonly Write[]): Promise<Outcome> {
    const pool = this.#options.pool();
    const bounds = writeBoundsOf(pool);
    const deadline = new Deadline(bounds.writeTimeoutMs);
    let client: PoolClient;
    try {
      client = await deadline.connect(pool);
    } catch (err) {
      if (isTimeout(err)) bounds.timedOut(err as Error);
      throw err;
    }
    const updates = batch.filter((write): write is Update => write.kind === 'update');
    let broken: Error | undefined;
    try {
      if (updates.length === 0) {
        const { text, values } = this.#statement(batch, new Map(), [], []);
        await deadline.query(client, text, values);
        return { updated: [] };
      }
      await deadline.query(client, 'BEGIN');
      const outcome = await this.#inTransaction(client, deadline, batch, updates);
      await deadline.query(client, 'COMMIT');
      return outcome;
    } catch (err) {
      if (isTimeout(err)) {
        // Its statement may still be on its way: the connection is destroyed, never reused (and the server, when it
        // reads again, ends the session and rolls back an open BEGIN). Nothing more is sent on it, not even ROLLBACK.
        broken = err as Error;
        bounds.timedOut(broken);
        this.#doubt(batch, client);
      } else if (updates.length > 0) {
        // A connection whose rollback fails is in an unknown state: it is discarded rather than reused.
        await deadline.query(client, 'ROLLBACK').catch((rollbackErr: unknown) => {
          broken = rollbackErr as Error;
        });
      }
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async #inTransaction(client: PoolClient, deadline: Deadline, batch: readonly Write[], updates: readonly Update[]): Promise<Outcome> {
    // Locked in id order, so two instances' batches never wait on each other's rows crosswise.
    const ids = [...new Set(updates.map((write) => write.id))].sort();
    const { rows } = await deadline.query<{ id: string; doc: unknown }>(client, 'SELECT id, doc FROM transactions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [ids]);
    const current = new Map(rows.map((row) => [row.id, decode(row.doc) as Record<string, unknown>]));
    const rewritten = new Map<string, TransactionRecord>();
    const finished: TransactionRecord[] = [];
    const changed: TransactionRecord[] = [];
    const updated: (TransactionRecord | null)[] = [];
    batch.forEach((write, i) => {
      if (write.kind !== 'update') return;
      const record = current.get(write.id);
      if (record === undefined) {
        updated[i] = null;
        return;
      }
      const wasProcessing = record.status === 'Processing';
      const indexed = indexedSnapshot(record as unknown as TransactionRecord);
      let after: TransactionRecord;
      try {
        after = applyTransactionChanges(record, write.update, write.push);
      } catch (err) {
        throw new RowError(err);
      }
      rewritten.set(write.id, after);
      // A copy as this write left it: a later write of the same transaction in the batch changes the record itself.
      updated[i] = { ...after };
      if (wasProcessing && after.status !== 'Processing') finished.push({ ...after });
      else if (needsReindexing(indexed, after)) changed.push({ ...after });
    });
    const { text, values } = this.#statement(batch, rewritten, finished, changed);
    if (values.length > 0) await deadline.query(client, text, values);
    return { updated };
  }

  /**
   * The batch as one statement: the inserted rows, the rewritten rows, and the finished entries and metric counts of
   * the transactions that reached a final status (inserted so, or completed by an update of the batch).
   */
  #statement(batch: readonly Write[], rewritten: ReadonlyMap<string, TransactionRecord>, completed: readonly TransactionRecord[], changed: readonly TransactionRecord[]): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    const add = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    const parts: string[] = [];
    const inserted = batch.filter((write): write is Insert => write.kind === 'insert').map((write) => write.record);
    if (inserted.length > 0) {
      const c = columnArrays(inserted);
      parts.push(`inserted AS (
        INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, instance, doc)
        SELECT id, ts, channel, client, status, code, method, path, rerun, ${add(this.#options.instanceId)}, doc::jsonb
          FROM unnest(${add(c.id)}::text[], ${add(c.ts)}::bigint[], ${add(c.channel)}::text[], ${add(c.client)}::text[], ${add(c.status)}::text[],
            ${add(c.code)}::integer[], ${add(c.method)}::text[], ${add(c.path)}::text[], ${add(c.rerun)}::boolean[], ${add(c.doc)}::text[])
            AS v (id, ts, channel, client, status, code, method, path, rerun, doc)
      )`);
    }
    if (rewritten.size > 0) {
      const c = columnArrays([...rewritten.values()]);
      parts.push(`rewritten AS (
        UPDATE transactions t SET ts = v.ts, channel = v.channel, client = v.client, status = v.status, code = v.code,
          method = v.method, path = v.path, rerun = v.rerun, doc = v.doc::jsonb
          FROM unnest(${add(c.id)}::text[], ${add(c.ts)}::bigint[], ${add(c.channel)}::text[], ${add(c.client)}::text[], ${add(c.status)}::text[],
            ${add(c.code)}::integer[], ${add(c.method)}::text[], ${add(c.path)}::text[], ${add(c.rerun)}::boolean[], ${add(c.doc)}::text[])
            AS v (id, ts, channel, client, status, code, method, path, rerun, doc)
         WHERE t.id = v.id
      )`);
    }
    const finished = [...inserted.filter((record) => record.status !== 'Processing'), ...completed];
    if (finished.length > 0) parts.push(...finishedParts(finished, this.#options.buckets, this.#options.now(), values));
    parts.push(...changedParts(changed, this.#options.now(), values));
    return { text: parts.length === 0 ? '' : `WITH ${parts.join(',\n')} SELECT 1`, values };
  }
}

/** Inserts of one timed-out batch, and the server process of its destroyed connection. */
interface InDoubt {
  ids: string[];
  pid: number;
}

/** How often, and how long apart, the backends of timed-out connections are looked for before giving up for now. */
const DOUBT_TRIES = 40;
const DOUBT_PAUSE_MS = 50;

/** Why a transaction whose insert timed out but was stored after all is Failed: its sender was refused. */
export const IN_DOUBT = 'The database did not answer in time while this transaction was stored; its sender was refused';

interface Outcome {
  /** Each update's record as it left it, by its index in the batch (null: no such transaction). */
  updated: (TransactionRecord | null)[];
}

/** Column arrays for `unnest`, one element per record, in the order of `transactionColumns`, and the documents. */
function columnArrays(records: readonly TransactionRecord[]) {
  const c = {
    id: [] as string[],
    ts: [] as number[],
    channel: [] as string[],
    client: [] as (string | null)[],
    status: [] as string[],
    code: [] as (number | null)[],
    method: [] as string[],
    path: [] as string[],
    rerun: [] as boolean[],
    doc: [] as string[],
  };
  for (const record of records) {
    const [id, ts, channel, client, status, code, method, path, rerun] = transactionColumns(record);
    c.id.push(id);
    c.ts.push(ts);
    c.channel.push(channel);
    c.client.push(client);
    c.status.push(status);
    c.code.push(code);
    c.method.push(method);
    c.path.push(path);
    c.rerun.push(rerun);
    c.doc.push(JSON.stringify(encode(record)));
  }
  return c;
}

/** A record the update rules could not apply to: that write's own failure, found before anything was sent. */
class RowError extends Error {
  constructor(readonly error: unknown) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Whether a batch failed because of what one of its rows holds rather than the database or the connection: an
 * integrity constraint (class 23: an id stored twice), a value refused (class 22), or a RowError. Its writes are then
 * tried one by one.
 */
function oneRowFailed(err: unknown): boolean {
  if (err instanceof RowError) return true;
  const state = sqlState(err);
  return state !== undefined && (state.startsWith('23') || state.startsWith('22'));
}
