/**
 * Whole small bodies written as one multi-row INSERT. The proxy stores two bodies per request, each a round trip on
 * its own; while one INSERT is on its way, the bodies that arrive wait and go together in the next, so under load a
 * round trip carries many bodies and with one body at a time nothing waits (group commit, as sqlite/group-commit.ts
 * does for the embedded engine). Each INSERT has the log's write bound (deadline.ts); a batch that runs out of it
 * fails whole, without trying its rows one by one against a server that does not answer.
 */
import type { Pool, PoolClient } from 'pg';
import { Deadline, isTimeout, writeBoundsOf } from './deadline.js';

/** One `bodies` row of a body held whole: path, day, channel, data. */
export interface WholeBody {
  path: string;
  day: string;
  channel: string;
  data: Buffer;
}

interface Waiting extends WholeBody {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Rows per INSERT: 5 parameters each, far below PostgreSQL's 65,535 and small enough to keep one statement short. */
const MAX_ROWS = 500;

/** Batches whole-body INSERTs on `pool`, at most one batch in flight. */
export class WholeBodyBatches {
  #waiting: Waiting[] = [];
  #inFlight = false;

  constructor(private readonly pool: () => Pool) {}

  /** Resolves once the body's row is committed; rejects with that row's own error, never another's. */
  put(body: WholeBody): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ ...body, resolve, reject });
      if (!this.#inFlight) this.#next();
    });
  }

  #next(): void {
    const batch = this.#waiting.splice(0, MAX_ROWS);
    if (batch.length === 0) {
      this.#inFlight = false;
      return;
    }
    this.#inFlight = true;
    // #write settles every body of its batch itself, so either way the next batch goes.
    const next = () => this.#next();
    this.#write(batch).then(next, next);
  }

  async #write(batch: Waiting[]): Promise<void> {
    let pool: Pool;
    try {
      pool = this.pool();
    } catch (err) {
      for (const body of batch) body.reject(err as Error);
      return;
    }
    try {
      await insert(pool, batch);
      for (const body of batch) body.resolve();
    } catch (err) {
      // A server that did not answer in time would not answer each row alone either: they all fail now.
      if (batch.length === 1 || isTimeout(err)) {
        for (const body of batch) body.reject(err as Error);
        return;
      }
      // One bad row (a path stored twice) fails the whole statement: each row is tried alone, so only it fails.
      await Promise.all(batch.map((body) => insert(pool, [body]).then(body.resolve, body.reject)));
    }
  }
}

/** The rows in one INSERT, within the pool's write bound (deadline.ts); a connection that ran out of time is destroyed. */
async function insert(pool: Pool, rows: readonly WholeBody[]): Promise<void> {
  const values: unknown[] = [];
  const tuples = rows.map((row, i) => {
    values.push(row.path, row.day, row.channel, row.data.length, row.data);
    const at = i * 5;
    return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, 0, $${at + 5})`;
  });
  const bounds = writeBoundsOf(pool);
  const deadline = new Deadline(bounds.writeTimeoutMs);
  let client: PoolClient | undefined;
  let broken: Error | undefined;
  try {
    client = await deadline.connect(pool);
    await deadline.query(client, `INSERT INTO bodies (path, day, channel, size, chunks, data) VALUES ${tuples.join(', ')}`, values);
  } catch (err) {
    if (isTimeout(err)) {
      broken = err as Error;
      bounds.timedOut(broken);
    }
    throw err;
  } finally {
    client?.release(broken);
  }
}
