/**
 * Bodies in PostgreSQL, so that a body one instance stored is readable from every other (no local files). Chunked
 * rows of a plain table were chosen over large objects: they live in the engine's schema like every other table
 * (large objects are database-wide, outside any schema), retention is a DELETE by day and channel (large objects
 * would each need lo_unlink), and a chunk is written in its own short statement instead of a transaction held open
 * for as long as a slow sender takes. Layout and commit rule: bodies-schema.ts.
 */
import { Readable, Writable } from 'node:stream';
import type { Pool, QueryResult, QueryResultRow } from 'pg';
import { bodyGone, bodyPathParts, bodyStoreFailure, checkSegments, isDay } from '../bodies/bodies.js';
import type { Bodies, BodyRef, BodySink, SinkOptions } from '../bodies/bodies.js';
import { readBodyText } from '../bodies/read-text.js';
import { StoreError } from '../store.js';
import type { PostgresDatabase } from './database.js';
import { wrapError } from './errors.js';
import { WholeBodyBatches } from './bodies-batch.js';
import { GroupedReads } from './grouped-reads.js';

/** Bytes per `body_chunks` row: large enough that a 100 MB body is 400 rows, small enough to hold one in memory. */
export const CHUNK_BYTES = 256 * 1024;
/** Rows per retention DELETE, so one statement never holds locks on a whole day of bodies. */
const DELETE_BATCH = 500;

interface Header {
  chunks: number;
  data: Buffer | null;
}

/** Creates the body store over `database`; nothing connects until `open()`. */
export function createPostgresBodies(database: PostgresDatabase): Bodies {
  return new PostgresBodies(database);
}

class PostgresBodies implements Bodies {
  #pool: Pool | null = null;
  readonly #wholeBodies = new WholeBodyBatches(() => this.#ready());
  /** Bodies' rows looked up in the same turn (the search indexer reads several at once), read by one statement. */
  readonly #headers = new GroupedReads<Header>(async (paths) => {
    const { rows } = await this.#query<Header & { path: string }>('read', 'SELECT path, chunks, data FROM bodies WHERE path = ANY($1::text[])', [paths]);
    return new Map(rows.map(({ path, chunks, data }) => [path, { chunks, data }]));
  });

  constructor(private readonly database: PostgresDatabase) {}

  async open(): Promise<void> {
    if (this.#pool !== null) return;
    this.#pool = await this.database.acquire();
  }

  async close(): Promise<void> {
    if (this.#pool === null) return;
    this.#pool = null;
    await this.database.release();
  }

  sink(options: SinkOptions): BodySink {
    checkSegments(options.day, options.channelId, options.bodyId);
    const pool = this.#ready();
    const wholeBodies = this.#wholeBodies;
    const { day, channelId } = options;
    const path = `${day}/${channelId}/${options.bodyId}`;
    // Bytes received but not yet in a row: less than one chunk, so memory stays bounded by CHUNK_BYTES.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let chunks = 0;
    let kept = 0;
    let received = 0;
    let committed = false;
    let resolveRef: (ref: BodyRef) => void = () => undefined;
    let rejectRef: (err: Error) => void = () => undefined;
    const done = new Promise<BodyRef>((resolve, reject) => {
      resolveRef = resolve;
      rejectRef = reject;
    });
    done.catch(() => undefined);

    const take = (bytes: number): Buffer => {
      const whole = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      const chunk = whole.subarray(0, bytes);
      const rest = whole.subarray(bytes);
      pending = rest.length > 0 ? [rest] : [];
      pendingBytes = rest.length;
      return chunk;
    };
    const writeChunk = async (data: Buffer): Promise<void> => {
      const n = chunks;
      chunks += 1;
      await pool.query('INSERT INTO body_chunks (path, n, day, channel, data) VALUES ($1, $2, $3, $4, $5)', [path, n, day, channelId, data]);
    };
    const writeFullChunks = async (): Promise<void> => {
      while (pendingBytes >= CHUNK_BYTES) await writeChunk(take(CHUNK_BYTES));
    };

    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        const room = options.capBytes - kept;
        const part = room >= chunk.length ? chunk : chunk.subarray(0, Math.max(0, room));
        kept += part.length;
        if (part.length > 0) {
          pending.push(part);
          pendingBytes += part.length;
        }
        // Below a chunk nothing is written yet, and the callback is synchronous: no promise per small body part.
        if (pendingBytes < CHUNK_BYTES) {
          callback();
          return;
        }
        // The callback waits for the row, which is the database's backpressure reaching the sender.
        writeFullChunks().then(
          () => callback(),
          (err: unknown) => callback(bodyStoreFailure(err)),
        );
      },
      final(callback) {
        const commit = async (): Promise<void> => {
          if (chunks === 0) {
            // The whole body fits in its own row, and that row is the commit.
            await wholeBodies.put({ path, day, channel: channelId, data: take(pendingBytes) });
            return;
          }
          if (pendingBytes > 0) await writeChunk(take(pendingBytes));
          await pool.query('INSERT INTO bodies (path, day, channel, size, chunks, data) VALUES ($1, $2, $3, $4, $5, NULL)', [path, day, channelId, kept, chunks]);
        };
        commit().then(
          () => {
            committed = true;
            resolveRef({ path, size: kept, receivedBytes: received, truncated: received > kept });
            callback();
          },
          (err: unknown) => {
            const failure = bodyStoreFailure(err);
            rejectRef(failure);
            callback(failure);
          },
        );
      },
      destroy(err, callback) {
        rejectRef(err ?? new Error('the body stream was destroyed before it finished'));
        pending = [];
        pendingBytes = 0;
        if (committed || chunks === 0) {
          callback(err);
          return;
        }
        // The chunks are invisible without their body's row; removing them now saves waiting for retention. A failure
        // here leaves them to retention, so it does not replace the stream's own error.
        pool
          .query('DELETE FROM body_chunks WHERE path = $1', [path])
          .catch(() => undefined)
          .finally(() => callback(err));
      },
    });
    // Failures reach the caller through `done`; the stream's own error event must not go unhandled.
    stream.on('error', () => undefined);
    return { stream, done };
  }

  read(ref: Pick<BodyRef, 'path'>): Readable {
    bodyPathParts(ref.path);
    return this.#stream(ref.path, null);
  }

  async openRead(ref: Pick<BodyRef, 'path'>): Promise<Readable> {
    bodyPathParts(ref.path);
    const header = await this.#header(ref.path);
    if (header === null) throw bodyGone(ref.path);
    return this.#stream(ref.path, header);
  }

  async readText(ref: Pick<BodyRef, 'path'>, limit = Number.POSITIVE_INFINITY, encoding = 'utf-8'): Promise<string> {
    return readBodyText(this.read(ref), limit, encoding);
  }

  async days(): Promise<string[]> {
    // A loose index scan: one index probe per distinct day, however many bodies each day holds.
    const { rows } = await this.#query<{ day: string }>('days', `
      WITH RECURSIVE d (day) AS (
        SELECT min(day) FROM bodies
        UNION ALL
        SELECT (SELECT min(day) FROM bodies WHERE day > d.day) FROM d WHERE d.day IS NOT NULL
      )
      SELECT day FROM d WHERE day IS NOT NULL ORDER BY day`);
    return rows.map((row) => row.day);
  }

  async removeDaysBefore(day: string): Promise<string[]> {
    if (!isDay(day)) throw new RangeError(`not a day: ${day}`);
    const removed = (await this.days()).filter((d) => d < day);
    await this.#deleteInBatches('day < $1', [day]);
    return removed;
  }

  async removeChannelBodiesBefore(channelId: string, day: string): Promise<string[]> {
    checkSegments(day, channelId);
    const { rows } = await this.#query<{ day: string }>('removeChannelBodiesBefore', 'SELECT DISTINCT day FROM bodies WHERE day < $1 AND channel = $2 ORDER BY day', [day, channelId]);
    await this.#deleteInBatches('day < $1 AND channel = $2', [day, channelId]);
    return rows.map((row) => row.day);
  }

  /** Bodies' rows first, so a body stops being readable before any of its chunks go; then the chunks, orphans too. */
  async #deleteInBatches(where: string, params: string[]): Promise<void> {
    for (const [table, key] of [['bodies', 'path'], ['body_chunks', 'path, n']] as const) {
      for (;;) {
        const { rowCount } = await this.#query('remove', `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${DELETE_BATCH})`, params);
        if ((rowCount ?? 0) < DELETE_BATCH) break;
      }
    }
  }

  async #header(path: string): Promise<Header | null> {
    return (await this.#headers.get(path)) ?? null;
  }

  /**
   * A body as a stream that fetches one chunk each time its reader wants more, so at most one chunk is in memory.
   * `known` is the body's row when the caller has read it already.
   */
  #stream(path: string, known: Header | null): Readable {
    let header = known;
    let next = 0;
    const fetch = async (): Promise<Buffer | null> => {
      header ??= await this.#header(path);
      if (header === null) throw bodyGone(path);
      if (header.data !== null) {
        const data = next === 0 ? header.data : null;
        next = 1;
        return data;
      }
      if (next >= header.chunks) return null;
      const { rows } = await this.#query<{ data: Buffer }>('read', 'SELECT data FROM body_chunks WHERE path = $1 AND n = $2', [path, next]);
      // Retention removed the body while it was being read.
      if (rows[0] === undefined) throw bodyGone(path);
      next += 1;
      return rows[0].data;
    };
    return new Readable({
      read() {
        fetch().then(
          (data) => {
            this.push(data);
            if (data !== null && header !== null && (header.data !== null || next >= header.chunks)) this.push(null);
          },
          (err: Error) => this.destroy(err),
        );
      },
    });
  }

  /** A query of the reading and removing side: a failure is a StoreError (503 over the API, not 500). */
  async #query<R extends QueryResultRow>(action: string, text: string, values: unknown[] = []): Promise<QueryResult<R>> {
    const pool = this.#ready();
    try {
      return await pool.query<R>(text, values);
    } catch (err) {
      throw wrapError('bodies', action, err);
    }
  }

  #ready(): Pool {
    if (this.#pool === null) throw new StoreError('bodies: the PostgreSQL body store is not open');
    return this.#pool;
  }
}
