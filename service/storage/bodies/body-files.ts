/**
 * Body files: the embedded engine's bodies live on disk beside the transaction log, never inside its documents.
 * Layout `<root>/<yyyy-mm-dd>/<channelId>/<bodyId>`, so global retention removes a whole day folder and a
 * channel's `maxBodyAgeDays` removes that channel's folders in older days.
 */
import { createReadStream, createWriteStream, ReadStream, writeFile as writeFileWithCallback } from 'node:fs';
import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { SMALL_BODY_BYTES } from '../../domain/transactions/body-sizes.js';
import { bodyPathParts, bodyStoreFailure, checkSegments, isDay } from './bodies.js';
import type { Bodies, BodyRef, BodySink, SinkOptions } from './bodies.js';
import { readBodyText } from './read-text.js';

/** Folders known to exist, so each body does not pay for a mkdir; cleared when it grows past this many. */
const MAX_KNOWN_DIRS = 10_000;
/**
 * Writes a whole small file. The callback form is used on purpose: measured here, fs.promises.writeFile costs about
 * five times the CPU (a FileHandle and a promise per step), and a busy proxy writes two of these per request.
 */
function writeSmallFile(file: string, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    writeFileWithCallback(file, data, { flag: 'wx', mode: 0o600 }, (err) => (err === null ? resolve() : reject(err)));
  });
}

/** Where small bodies go instead of one file each, when the engine offers it (see sqlite/body-blobs.ts). */
export interface SmallBodyStore {
  open(): Promise<void>;
  close(): Promise<void>;
  /** Resolves once the body is committed. */
  put(path: string, day: string, channelId: string, data: Buffer): Promise<void>;
  get(path: string): Buffer | null;
  days(): string[];
  removeDaysBefore(day: string): Promise<void>;
  /** Returns the days that had bodies of the channel. */
  removeChannelBefore(channelId: string, day: string): Promise<string[]>;
}

/** The embedded engine's body store: small bodies in `small` when given, the others as files. */
export class BodyFiles implements Bodies {
  readonly #root: string;
  readonly #knownDirs = new Set<string>();
  readonly #small: SmallBodyStore | undefined;

  /** `small`, when given, keeps bodies of at most 64 KB; longer ones (and all bodies without it) are files. */
  constructor(root: string, small?: SmallBodyStore) {
    this.#root = root;
    this.#small = small;
  }

  /** Opens the small-body store, if any. */
  async open(): Promise<void> {
    await this.#small?.open();
  }

  /** Commits pending small bodies and closes their store, if any. */
  async close(): Promise<void> {
    await this.#small?.close();
  }

  /** Opens a sink that streams a body to disk, keeping at most `capBytes` and applying the disk's backpressure. */
  sink(options: SinkOptions): BodySink {
    checkSegments(options.day, options.channelId, options.bodyId);
    const smallStore = this.#small;
    const path = `${options.day}/${options.channelId}/${options.bodyId}`;
    // File names only when a file is written: most bodies go to the small store, and join() per body was 2% of the
    // storage work's CPU.
    const dir = (): string => join(this.#root, options.day, options.channelId);
    const file = (): string => join(dir(), options.bodyId);
    // A large body is written under another name and renamed once whole, so no reader ever opens half of one.
    const partial = (): string => `${file()}.part`;
    let out: WriteStream | undefined;
    let small: Buffer[] | null = [];
    let smallBytes = 0;
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

    const ensureDir = async (): Promise<void> => {
      const folder = dir();
      if (this.#knownDirs.has(folder)) return;
      await mkdir(folder, { recursive: true });
      if (this.#knownDirs.size >= MAX_KNOWN_DIRS) this.#knownDirs.clear();
      this.#knownDirs.add(folder);
    };
    const open = async (): Promise<WriteStream> => {
      if (out === undefined) {
        await ensureDir();
        out = createWriteStream(partial(), { flags: 'wx', mode: 0o600 });
        out.on('error', (err) => rejectRef(bodyStoreFailure(err)));
      }
      return out;
    };
    /** Writes a chunk that no longer fits in memory (`write` keeps the small ones) to the file. */
    const writeToFile = async (chunk: Buffer): Promise<void> => {
      if (small !== null) {
        // Too big to collect: stream what was collected, then everything that follows.
        const collected = small;
        small = null;
        const target = await open();
        for (const part of collected) target.write(part);
      }
      const target = await open();
      if (target.write(chunk)) return;
      // Wait for the disk to catch up, but give up on a write error instead of waiting for a drain that never comes.
      await new Promise<void>((resolve, reject) => {
        const drained = () => {
          target.off('error', failed);
          resolve();
        };
        const failed = (err: Error) => {
          target.off('drain', drained);
          reject(err);
        };
        target.once('drain', drained);
        target.once('error', failed);
      });
    };

    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        const room = options.capBytes - kept;
        const part = room >= chunk.length ? chunk : chunk.subarray(0, Math.max(0, room));
        kept += part.length;
        if (part.length === 0) {
          callback();
          return;
        }
        if (small !== null && smallBytes + part.length <= SMALL_BODY_BYTES) {
          // Still small: kept in memory, with no promise for the chunk.
          small.push(part);
          smallBytes += part.length;
          callback();
          return;
        }
        writeToFile(part).then(
          () => callback(),
          (err: unknown) => callback(bodyStoreFailure(err)),
        );
      },
      final(callback) {
        const finish = () => {
          committed = true;
          resolveRef({ path, size: kept, receivedBytes: received, truncated: received > kept });
          callback();
        };
        if (small !== null) {
          // An empty body still gets a file, so every ref can be read back.
          const data = Buffer.concat(small, smallBytes);
          small = null;
          const store = smallStore;
          (store === undefined ? ensureDir().then(() => writeSmallFile(file(), data)) : store.put(path, options.day, options.channelId, data))
            .then(finish, (err: unknown) => {
              const failure = bodyStoreFailure(err);
              rejectRef(failure);
              callback(failure);
            });
          return;
        }
        open()
          .then(async (target) => {
            await new Promise<void>((resolve, reject) => {
              target.once('error', reject);
              target.end(resolve);
            });
            await rename(partial(), file());
          })
          .then(finish, (err: unknown) => {
            const failure = bodyStoreFailure(err);
            rejectRef(failure);
            callback(failure);
          });
      },
      destroy(err, callback) {
        // Every finished sink is destroyed too (autoDestroy): only an unfinished one needs an error, and building one
        // (its stack) for each of the two bodies of every transaction cost 3% of the proxy's CPU at full speed.
        if (committed) {
          callback(err);
          return;
        }
        rejectRef(err ?? new Error('the body stream was destroyed before it finished'));
        if (out === undefined) {
          callback(err);
          return;
        }
        // The half-written file goes, so nothing is left under a name a reader could be given.
        const target = out;
        const closed = target.closed ? Promise.resolve() : once(target, 'close');
        target.destroy();
        closed
          .then(() => unlink(partial()))
          .catch(() => undefined)
          .finally(() => callback(err));
      },
    });
    // Failures reach the caller through `done`; the stream's own error event must not go unhandled.
    stream.on('error', () => undefined);
    return { stream, done };
  }

  /** Streams a stored body back. */
  read(ref: Pick<BodyRef, 'path'>): Readable {
    const { day, channelId, bodyId } = bodyPathParts(ref.path);
    const small = this.#small?.get(ref.path);
    if (small !== undefined && small !== null) return Readable.from([small]);
    return createReadStream(join(this.#root, day, channelId, bodyId));
  }

  /** Opens a stored body for reading; rejects (code ENOENT) when it is gone, for instance removed by retention. */
  async openRead(ref: Pick<BodyRef, 'path'>): Promise<Readable> {
    const stream = this.read(ref);
    if (!(stream instanceof ReadStream)) return stream;
    try {
      await once(stream, 'open');
    } catch (err) {
      stream.destroy();
      throw err;
    }
    return stream;
  }

  /** Reads a stored body as text, at most `limit` bytes, decoded from `encoding` (a TextDecoder label; UTF-8 by default). */
  async readText(ref: Pick<BodyRef, 'path'>, limit = Number.POSITIVE_INFINITY, encoding = 'utf-8'): Promise<string> {
    return readBodyText(this.read(ref), limit, encoding);
  }

  /** Days that have body folders, oldest first. */
  async days(): Promise<string[]> {
    const days = new Set(this.#small?.days() ?? []);
    try {
      for (const d of await readdir(this.#root)) if (isDay(d)) days.add(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return [...days].sort();
  }

  /** Removes every body of the days before `day` (global retention); returns the days removed. */
  async removeDaysBefore(day: string): Promise<string[]> {
    const old = (await this.days()).filter((d) => d < day);
    // Forgotten first: a body written while the folders go must create its folder again.
    this.#knownDirs.clear();
    await this.#small?.removeDaysBefore(day);
    for (const d of old) await rm(join(this.#root, d), { recursive: true, force: true });
    return old;
  }

  /** Removes one channel's bodies of the days before `day` (its maxBodyAgeDays); returns the days touched. */
  async removeChannelBodiesBefore(channelId: string, day: string): Promise<string[]> {
    this.#knownDirs.clear();
    checkSegments(day, channelId);
    const touched = new Set(await (this.#small?.removeChannelBefore(channelId, day) ?? Promise.resolve([])));
    for (const d of (await this.days()).filter((x) => x < day)) {
      const dir = join(this.#root, d, channelId);
      try {
        await rm(dir, { recursive: true });
        touched.add(d);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return [...touched].sort();
  }
}
