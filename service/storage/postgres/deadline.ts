/**
 * A time bound on the transaction path's writes. A PostgreSQL server that keeps its sockets open but stops answering
 * (a frozen process, a paused virtual machine, a storage stall) is invisible to TCP keepalive: the kernel still acks.
 * Without a bound the one group commit in flight, and every write queued behind it, would wait for as long as the
 * server is frozen. Here a batch gets one deadline for all of its steps (the wait for a connection, each statement),
 * and a connection whose statement ran out of time is destroyed rather than given back to the pool: its server may
 * still answer that statement later, and nothing else must read that answer.
 */
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';

/** `storage.postgres.writeTimeoutMs`'s default, for a pool not opened by PostgresDatabase (some tests). */
export const WRITE_TIMEOUT_MS = 10_000;

/** What a pool opened by PostgresDatabase tells its writers: their bound, and whom to tell when it was hit. */
export interface WriteBounds {
  writeTimeoutMs: number;
  /** A write ran out of time: the database may be frozen (reachability probes it). */
  timedOut: (err: Error) => void;
}

const boundsByPool = new WeakMap<Pool, WriteBounds>();

/** Records the bounds of `pool` (PostgresDatabase, when it opens it). */
export function setWriteBounds(pool: Pool, bounds: WriteBounds): void {
  boundsByPool.set(pool, bounds);
}

/** The bounds of `pool`: its own, or the default with nobody to tell. */
export function writeBoundsOf(pool: Pool): WriteBounds {
  return boundsByPool.get(pool) ?? { writeTimeoutMs: WRITE_TIMEOUT_MS, timedOut: () => undefined };
}

/** A write that did not finish within its bound; the message says which step and how long was allowed. */
export class WriteTimeoutError extends Error {
  override readonly name = 'WriteTimeoutError';
}

/** node-postgres' own message for a statement past its `query_timeout` (the client's `Query read timeout`). */
const PG_READ_TIMEOUT = 'Query read timeout';

/** Whether `err` is a statement or connection wait cut short by a client-side bound (not an answer of the server). */
export function isTimeout(err: unknown): boolean {
  return err instanceof WriteTimeoutError || (err instanceof Error && err.message === PG_READ_TIMEOUT);
}

/** One batch's time: every step asks what is left. */
export class Deadline {
  readonly #end: number;

  constructor(readonly ms: number) {
    this.#end = performance.now() + ms;
  }

  /** Milliseconds left (at least 1: node-postgres reads 0 as no bound); throws WriteTimeoutError when none are. */
  left(what: string): number {
    const left = Math.ceil(this.#end - performance.now());
    if (left <= 0) throw new WriteTimeoutError(`${what}: no answer from PostgreSQL within ${this.ms} ms`);
    return left;
  }

  /** A connection of `pool` within the deadline; one that comes later is given back unused. */
  async connect(pool: Pool): Promise<PoolClient> {
    const ms = this.left('waiting for a connection');
    const connecting = pool.connect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WriteTimeoutError(`waiting for a connection: none within ${this.ms} ms`)), ms);
    });
    try {
      return await Promise.race([connecting, late]);
    } catch (err) {
      // Whatever the pool does later with this checkout, the connection goes back to it.
      connecting.then((client) => client.release(), () => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** `text` on `client`, bounded by what is left (node-postgres' `query_timeout`, for this statement only). */
  async query<R extends QueryResultRow = QueryResultRow>(client: PoolClient, text: string, values?: unknown[]): Promise<QueryResult<R>> {
    // query_timeout is read per statement by node-postgres (client.js) but is missing from @types/pg's QueryConfig.
    const config = { text, values, query_timeout: this.left('a statement') } as QueryConfig;
    return await client.query<R>(config);
  }
}
