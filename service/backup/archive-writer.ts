/**
 * Writing a backup archive: a gzip'd tar of files, each hashed as it streams through, ending with the manifest
 * (domain/operations/backup.ts) that lists every entry with its size and SHA-256. Nothing is held whole in memory: each file is
 * read in chunks at the pace the destination (an HTTP response, a file) takes them.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, constants as zlib } from 'node:zlib';
import tar from 'tar-stream';
import type { Pack } from 'tar-stream';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, MANIFEST_NAME } from '../domain/operations/backup.js';
import type { BackupManifest, BackupManifestEntry } from '../domain/operations/backup.js';

/** One file to put in the archive: `name` inside it, read from `path`. */
export interface ArchiveSource {
  name: string;
  path: string;
}

export interface ArchiveProgress {
  entriesDone: number;
  bytesDone: number;
}

export interface WriteArchiveOptions {
  sources: readonly ArchiveSource[];
  out: Writable;
  junctionVersion: string;
  created: Date;
  onProgress?: (progress: ArchiveProgress) => void;
}

/**
 * Writes the archive of `sources` to `out` and resolves with its manifest once `out` has finished. A source that no
 * longer exists when its turn comes (retention removed a day of bodies) is left out; a failure of `out` (a client
 * that went away) stops the reading and rejects.
 */
export async function writeArchive(options: WriteArchiveOptions): Promise<BackupManifest> {
  const pack = tar.pack();
  // Level 1: most of the gain of compressing JSON rows for a fraction of the CPU a busy proxy would lose to level 6.
  const gzip = createGzip({ level: 1, memLevel: zlib.Z_DEFAULT_MEMLEVEL });
  const abort = new AbortController();
  const piping = pipeline(pack, gzip, options.out);
  piping.catch(() => abort.abort());
  const entries: BackupManifestEntry[] = [];
  const progress: ArchiveProgress = { entriesDone: 0, bytesDone: 0 };
  try {
    for (const source of options.sources) {
      const entry = await addFile(pack, source, abort.signal, (bytes) => {
        progress.bytesDone += bytes;
        options.onProgress?.(progress);
      });
      if (entry === null) continue;
      entries.push(entry);
      progress.entriesDone++;
      options.onProgress?.(progress);
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      formatVersion: BACKUP_FORMAT_VERSION,
      junctionVersion: options.junctionVersion,
      created: options.created.toISOString(),
      entries,
    };
    const text = Buffer.from(JSON.stringify(manifest, null, 1));
    await new Promise<void>((resolve, reject) => {
      pack.entry({ name: MANIFEST_NAME, size: text.length, mode: 0o600, mtime: options.created }, text, (err) => (err ? reject(err) : resolve()));
    });
    pack.finalize();
    await piping;
    return manifest;
  } catch (err) {
    // When the destination failed first, its own error says more than the aborted read.
    const destinationFailed = abort.signal.aborted;
    pack.destroy(err as Error);
    const pipeErr: unknown = await piping.then(() => undefined, (e: unknown) => e);
    throw destinationFailed && pipeErr !== undefined ? pipeErr : err;
  }
}

/** Streams one file into the pack, hashing it; null when the file is gone. Reads exactly the size it had when opened. */
async function addFile(pack: Pack, source: ArchiveSource, signal: AbortSignal, onBytes: (bytes: number) => void): Promise<BackupManifestEntry | null> {
  let handle;
  try {
    handle = await open(source.path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return null;
    // A file still growing (a body being received) is taken as far as it was when opened: the tar header needs a size.
    const size = stat.size;
    const hash = createHash('sha256');
    let done: () => void = () => undefined;
    let failed: (err: Error) => void = () => undefined;
    const written = new Promise<void>((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    const entry = pack.entry({ name: source.name, size, mode: 0o600, mtime: stat.mtime }, (err) => (err ? failed(err) : done()));
    let read = 0;
    if (size > 0) {
      for await (const chunk of handle.createReadStream({ start: 0, end: size - 1, autoClose: false, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
        if (signal.aborted) throw new Error('the backup destination failed');
        read += chunk.length;
        hash.update(chunk);
        onBytes(chunk.length);
        if (!entry.write(chunk)) await once(entry, 'drain', { signal });
      }
    }
    if (read !== size) throw new Error(`${source.name} shrank while it was being copied (${read} of ${size} bytes)`);
    entry.end(() => undefined);
    await written;
    return { name: source.name, size, sha256: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}
