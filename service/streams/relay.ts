/**
 * Moving a body: into memory (`readUpTo`, Junction's one body reader), or on to the client and a body file (`copy`).
 * Every function here settles in every case (issue 12): a body that errors, closes early or stalls (undici's
 * bodyTimeout errors it), a client that leaves, a limit passed, or the transaction's stall watchdog aborting, each
 * ends the move and is reported, never left waiting. `stream.pipe()` does not give that: it never ends its
 * destination when the source fails.
 *
 * Its users: the pipeline reads request bodies (content matching, small requests) and answers (small, rewritten or
 * structured ones) and copies answers on; the body store reads stored bodies back. It knows neither, so both can
 * import it.
 */
import type { ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';

/** Which side stopped a move early: the body's source, the client, or the transaction's watchdog. */
export interface MoveFailure {
  side: 'source' | 'client' | 'aborted';
  error: Error;
}

export interface MoveOptions {
  /** The client's response: a client that leaves stops the move (and the source is destroyed). */
  res?: ServerResponse;
  /** Called for every chunk, so the transaction's stall watchdog sees progress. */
  touch?: () => void;
  /** The transaction's abort signal; its reason is the failure when it fired. */
  signal?: AbortSignal;
}

export const CLIENT_LEFT = 'the client closed the connection before the whole answer was sent';
/** Why a request body is missing when its client closed the connection before sending all of it. */
export const REQUEST_CUT_SHORT = 'the client closed the connection before sending the whole request';

/** Which side stopped a move, and why: the watchdog's reason first, then a client that left, then the source's error. */
export function failureOf(err: unknown, clientLeft: boolean, signal: AbortSignal | undefined): MoveFailure {
  if (signal?.aborted === true) return { side: 'aborted', error: signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)) };
  if (clientLeft) return { side: 'client', error: new Error(CLIENT_LEFT) };
  return { side: 'source', error: err instanceof Error ? err : new Error(String(err)) };
}

/** True when the client's connection is gone (it left, or Junction gave up on it). */
export function clientGone(res: ServerResponse | undefined): boolean {
  return res !== undefined && res.destroyed && !res.writableFinished;
}

const NOTHING_TO_STOP = (): void => undefined;

/** Calls `onLeave` if the client leaves before its answer finished; returns the function that stops watching. */
function watchClient(res: ServerResponse | undefined, onLeave: () => void): () => void {
  if (res === undefined) return NOTHING_TO_STOP;
  const onClose = () => {
    if (!res.writableFinished) onLeave();
  };
  res.once('close', onClose);
  return () => res.off('close', onClose);
}

export interface Read {
  chunks: Buffer[];
  size: number;
  /** True when the body ended within the limit; false when it is longer (the rest is still in the source) or failed. */
  ended: boolean;
  failure?: MoveFailure;
}

export interface ReadOptions extends MoveOptions {
  /** The error when the source closes without ending or erroring (a request destroyed by the watchdog, say). */
  closedEarly?: string;
}

const ANSWER_CLOSED_EARLY = 'the connection closed before the answer ended';

/**
 * Reads a body into memory, up to just over `limit` bytes. When it is longer, reading pauses and the source keeps
 * the rest, so `copy` can continue it (or the caller destroys it). Never rejects: a failure is in the result.
 */
export function readUpTo(source: Readable, limit: number, options: ReadOptions = {}): Promise<Read> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let clientLeft = false;
    const finish = (ended: boolean, failure?: MoveFailure) => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      source.off('close', onClose);
      unwatch();
      resolve(failure === undefined ? { chunks, size, ended } : { chunks, size, ended, failure });
    };
    const onData = (chunk: Buffer) => {
      options.touch?.();
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        source.pause();
        finish(false);
      }
    };
    const onEnd = () => finish(true);
    const onError = (err: Error) => finish(false, failureOf(err, clientLeft, options.signal));
    // A source destroyed without an error closes without ending.
    const onClose = () => onError(new Error(options.closedEarly ?? ANSWER_CLOSED_EARLY));
    const unwatch = watchClient(options.res, () => {
      clientLeft = true;
      source.destroy();
      onError(new Error(CLIENT_LEFT));
    });
    if (clientGone(options.res)) {
      clientLeft = true;
      source.destroy();
      onError(new Error(CLIENT_LEFT));
      return;
    }
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', onError);
    source.once('close', onClose);
  });
}

/** Resolves when `stream` can take more, or can take nothing ever again (closed or failed). */
function drained(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}

export interface Copied {
  /** The last chunk, held back: neither target has it yet. */
  last?: Buffer;
  failure?: MoveFailure;
}

async function* withPrefix(prefix: readonly Buffer[], source: Readable): AsyncGenerator<Buffer> {
  yield* prefix;
  yield* source as AsyncIterable<Buffer>;
}

/**
 * Copies `prefix` and then the rest of `source` to the client and the body file, with the backpressure of both. The
 * last chunk is held back and returned, so the caller can make the outcome durable before the answer's last byte
 * leaves. Neither target is ended. A body file that fails is left behind and the copy goes on for the client; a
 * source that fails or a client that leaves stops the copy, destroys the source, and is returned as `failure`.
 */
export async function copy(source: Readable, prefix: readonly Buffer[], to: MoveOptions & { sink?: Writable }): Promise<Copied> {
  const { res, touch, signal } = to;
  let sink = to.sink;
  let held: Buffer | undefined;
  let clientLeft = clientGone(res);
  const unwatch = watchClient(res, () => {
    clientLeft = true;
    source.destroy();
  });
  const forward = async (chunk: Buffer): Promise<void> => {
    const waits: Promise<void>[] = [];
    if (res !== undefined && !res.destroyed && !res.write(chunk)) waits.push(drained(res));
    if (sink?.destroyed === true) sink = undefined;
    if (sink !== undefined && !sink.write(chunk)) waits.push(drained(sink));
    if (waits.length > 0) await Promise.all(waits);
  };
  try {
    if (clientLeft) {
      source.destroy();
      return { failure: failureOf(undefined, true, signal) };
    }
    for await (const chunk of withPrefix(prefix, source)) {
      touch?.();
      if (held !== undefined) await forward(held);
      held = chunk;
      // Leaving the loop destroys the source.
      if (clientLeft || signal?.aborted === true) break;
    }
  } catch (err) {
    return { ...(held === undefined ? {} : { last: held }), failure: failureOf(err, clientLeft, signal) };
  } finally {
    unwatch();
  }
  if (clientLeft || signal?.aborted === true) return { ...(held === undefined ? {} : { last: held }), failure: failureOf(undefined, clientLeft, signal) };
  return held === undefined ? {} : { last: held };
}
