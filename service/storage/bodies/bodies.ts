/**
 * What the rest of Junction uses of a body store, whichever engine keeps the bytes: files beside the embedded log
 * (body-files.ts) or rows in PostgreSQL (storage/postgres/bodies.ts), which every instance of a cluster can read.
 * test/storage/bodies-contract.ts holds every engine to the same behaviour.
 */
import type { Readable, Writable } from 'node:stream';
import { StoreError } from '../store.js';

/** Where a body is and what was kept of it. Stored in the transaction document. */
export interface BodyRef {
  /** `<day>/<channelId>/<bodyId>`: the body's key in every engine. */
  path: string;
  /** Bytes kept. */
  size: number;
  /** Bytes the sender sent (larger than `size` when truncated). */
  receivedBytes: number;
  /** True when the body was longer than the cap: only the first `size` bytes were kept, so it cannot be re-run. */
  truncated: boolean;
}

export interface SinkOptions {
  /** UTC day of the transaction, `yyyy-mm-dd`. */
  day: string;
  channelId: string;
  bodyId: string;
  /** Most bytes to keep; the rest is counted but dropped. */
  capBytes: number;
}

/** A writable end for one body plus the promise of its reference once the stream has finished. */
export interface BodySink {
  stream: Writable;
  /**
   * Resolves once the whole body is stored and readable; rejects when the stream failed, leaving nothing readable:
   * with a `BodyStoreError` when the store itself failed (a full disk, a lost database), otherwise with the error the
   * stream was destroyed with (the sender broke off).
   */
  done: Promise<BodyRef>;
}

/**
 * The body store could not write a body (ENOSPC, EIO, a database error). Told apart from a sender that broke off,
 * because a body lost this way must never be acknowledged as stored.
 */
export class BodyStoreError extends StoreError {
  override readonly name = 'BodyStoreError';
  /** The underlying error's code (`ENOSPC`, a PostgreSQL SQLSTATE), when it has one. */
  readonly code: string | undefined;
  constructor(cause: unknown) {
    const error = cause instanceof Error ? cause : new Error(String(cause));
    super(`the body could not be stored: ${error.message}`, { cause: error });
    const { code } = error as { code?: unknown };
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/** The store's own failure as a BodyStoreError (unchanged when it is one already). */
export function bodyStoreFailure(err: unknown): BodyStoreError {
  return err instanceof BodyStoreError ? err : new BodyStoreError(err);
}

/**
 * A body store. A body becomes readable whole when its sink's `done` resolves, never before and never in part; a
 * body that is gone (never stored, or removed by retention) reads as an error whose `code` is `ENOENT`.
 */
export interface Bodies {
  /** Opens the store (connects, creates what it needs). */
  open(): Promise<void>;
  /** Commits what is pending and closes the store. */
  close(): Promise<void>;
  /** Opens a sink that streams one body in, keeping at most `capBytes` and passing the store's backpressure on. */
  sink(options: SinkOptions): BodySink;
  /** Streams a stored body back; a missing body fails the stream with ENOENT. Throws RangeError on a malformed path. */
  read(ref: Pick<BodyRef, 'path'>): Readable;
  /** Opens a stored body for reading; rejects (code ENOENT) when it is gone, for instance removed by retention. */
  openRead(ref: Pick<BodyRef, 'path'>): Promise<Readable>;
  /** Reads a stored body as text, at most `limit` bytes, decoded from `encoding` (a TextDecoder label; UTF-8 by default). */
  readText(ref: Pick<BodyRef, 'path'>, limit?: number, encoding?: string): Promise<string>;
  /** Days that have bodies, oldest first. */
  days(): Promise<string[]>;
  /** Removes every body of the days before `day` (global retention); returns the days removed. */
  removeDaysBefore(day: string): Promise<string[]>;
  /** Removes one channel's bodies of the days before `day` (its maxBodyAgeDays); returns the days touched. */
  removeChannelBodiesBefore(channelId: string, day: string): Promise<string[]>;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

/** True for a `yyyy-mm-dd` day name. */
export function isDay(text: string): boolean {
  return DAY.test(text);
}

/** Throws RangeError unless each part is safe in a body path. */
export function checkSegments(day: string, channelId: string, bodyId?: string): void {
  // Ids come from our own records, but a path built from anything else must not escape the body root.
  if (!DAY.test(day)) throw new RangeError(`not a day: ${day}`);
  if (!SEGMENT.test(channelId)) throw new RangeError(`not a safe channel id: ${channelId}`);
  if (bodyId !== undefined && !SEGMENT.test(bodyId)) throw new RangeError(`not a safe body id: ${bodyId}`);
}

/** The parts of a body path, checked; throws RangeError on anything else. */
export function bodyPathParts(path: string): { day: string; channelId: string; bodyId: string } {
  const parts = path.split('/');
  const [day = '', channelId = '', bodyId = ''] = parts;
  if (parts.length !== 3) throw new RangeError(`not a body path: ${path}`);
  checkSegments(day, channelId, bodyId);
  return { day, channelId, bodyId };
}

/** The error a missing body reads as, with the `code` a missing file has, so callers test one thing for every engine. */
export function bodyGone(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no stored body ${path}`), { code: 'ENOENT' });
}

/** The UTC day (`yyyy-mm-dd`) of a moment: the transaction ids' own, so body paths and ids always agree. */
export { dayOf } from '../transaction-ids.js';
