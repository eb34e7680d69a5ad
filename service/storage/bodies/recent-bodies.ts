/**
 * The search indexer's hand-over (issue 37, session 17): a body store that keeps, in memory and bounded, the bytes of
 * the bodies it has just stored, so the indexer, which reads every body once a second or so after it was stored, takes
 * them from here instead of reading them back from disk. Profiled under the ingest benchmark, the read back (open,
 * stream, concatenate, a promise chain per body) was about a fifth of indexing's cost.
 *
 * What it keeps is exactly what the engine stored: the chunks written to the sink up to the cap, once the engine says
 * the body is stored (`done`), cut to the size it reports. Nothing is copied on the proxy's path: the sink keeps
 * references to the chunks it is given. A body is taken once (the indexer reads it once); one not taken is dropped
 * oldest first past `maxBytes`; a body removed by retention is dropped with it. Anything not kept (too large, written
 * as strings, evicted, after a restart) is read from the engine as before: the store stays the source of truth.
 */
import type { Readable } from 'node:stream';
import type { Bodies, BodyRef, BodySink, SinkOptions } from './bodies.js';

/** Bytes of recent bodies kept by default: a few seconds of a busy clinic's traffic. */
export const RECENT_BODY_BYTES = 16 * 1024 * 1024;
/** A body larger than this is read back instead (kept, it would push out many ordinary ones). */
const LARGEST_KEPT = 1024 * 1024;

/** A kept body: the chunks written (`written` bytes, possibly past the cap) of which the first `stored` were stored. */
interface Kept {
  chunks: readonly Buffer[];
  written: number;
  stored: number;
}

export class RecentBodies implements Bodies {
  readonly #inner: Bodies;
  readonly #maxBytes: number;
  /** Insertion order is age: the oldest first. */
  readonly #kept = new Map<string, Kept>();
  #bytes = 0;
  /** Bodies taken from memory and read from the engine, for the tests and the benchmark. */
  readonly counts = { taken: 0, readBack: 0 };

  constructor(inner: Bodies, maxBytes = RECENT_BODY_BYTES) {
    this.#inner = inner;
    this.#maxBytes = maxBytes;
  }

  open(): Promise<void> {
    return this.#inner.open();
  }

  close(): Promise<void> {
    this.#kept.clear();
    this.#bytes = 0;
    return this.#inner.close();
  }

  sink(options: SinkOptions): BodySink {
    const sink = this.#inner.sink(options);
    const chunks: Buffer[] = [];
    let size = 0;
    let keep = options.capBytes > 0;
    // The engine stores at most capBytes; past LARGEST_KEPT a body is read back. So never hold more than the smaller:
    // a 50 MB body streamed through must not sit in memory until it is stored.
    const wanted = Math.min(options.capBytes, LARGEST_KEPT);
    const note = (chunk: unknown): void => {
      if (!keep || chunk === undefined || chunk === null) return;
      // A string's bytes depend on its encoding argument: such a body (none today) is read back instead.
      if (!Buffer.isBuffer(chunk)) {
        keep = false;
        chunks.length = 0;
        return;
      }
      if (size >= wanted) {
        // More than LARGEST_KEPT will be stored: it is read back, so let go of what was held.
        if (options.capBytes > LARGEST_KEPT) {
          keep = false;
          chunks.length = 0;
        }
        // Otherwise the engine cuts the body at its cap, which the chunks held already cover.
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    };
    const { stream } = sink;
    // Wrapped, not piped through another stream: the proxy's path gains two calls per chunk, no copy and no hop.
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    const end = stream.end.bind(stream) as (...args: unknown[]) => typeof stream;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      note(chunk);
      return write(chunk, ...rest);
    }) as typeof stream.write;
    stream.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') note(chunk);
      return end(chunk, ...rest);
    }) as typeof stream.end;
    const done = sink.done.then((ref) => {
      if (keep && ref.size <= LARGEST_KEPT) this.#keep(ref, chunks, size);
      return ref;
    });
    // The engines mark their promise handled (a caller that gives up on a broken exchange never awaits it); so does this one.
    done.catch(() => undefined);
    return { stream, done };
  }

  /** Keeps the chunks as they are (joined only when the indexer reads them, not on the way to the client's answer). */
  #keep(ref: BodyRef, chunks: readonly Buffer[], size: number): void {
    // The engine kept fewer bytes than were written only by its cap; anything else and memory would not be what is stored.
    if (size < ref.size) return;
    this.#drop(ref.path);
    this.#kept.set(ref.path, { chunks, written: size, stored: ref.size });
    this.#bytes += size;
    for (const [path, old] of this.#kept) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#kept.delete(path);
      this.#bytes -= old.written;
    }
  }

  #drop(path: string): void {
    const old = this.#kept.get(path);
    if (old === undefined) return;
    this.#kept.delete(path);
    this.#bytes -= old.written;
  }

  read(ref: Pick<BodyRef, 'path'>): Readable {
    return this.#inner.read(ref);
  }

  openRead(ref: Pick<BodyRef, 'path'>): Promise<Readable> {
    return this.#inner.openRead(ref);
  }

  /** From memory once, when it is kept (the indexer's one read); from the engine otherwise. */
  readText(ref: Pick<BodyRef, 'path'>, limit = Number.POSITIVE_INFINITY, encoding = 'utf-8'): Promise<string> {
    const kept = this.#kept.get(ref.path);
    if (kept === undefined) {
      this.counts.readBack++;
      return this.#inner.readText(ref, limit, encoding);
    }
    this.#drop(ref.path);
    this.counts.taken++;
    const read = Buffer.concat(kept.chunks, kept.written).subarray(0, Math.min(kept.stored, limit));
    return Promise.resolve(encoding === 'utf-8' ? read.toString('utf8') : new TextDecoder(encoding).decode(read));
  }

  days(): Promise<string[]> {
    return this.#inner.days();
  }

  async removeDaysBefore(day: string): Promise<string[]> {
    for (const path of [...this.#kept.keys()]) if (path.slice(0, 10) < day) this.#drop(path);
    return this.#inner.removeDaysBefore(day);
  }

  async removeChannelBodiesBefore(channelId: string, day: string): Promise<string[]> {
    for (const path of [...this.#kept.keys()]) if (path.slice(0, 10) < day && path.split('/')[1] === channelId) this.#drop(path);
    return this.#inner.removeChannelBodiesBefore(channelId, day);
  }
}
