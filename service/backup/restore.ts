/**
 * Restoring a backup archive into an empty data folder. The archive is read twice: first only to check it (every
 * entry's name, size and SHA-256 against the manifest at its end), writing nothing; then again into a hidden folder
 * inside the target, checked again, and only when that pass is whole are its files moved into place. A damaged or
 * truncated archive therefore leaves the folder exactly as it was.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { MANIFEST_NAME, entryNameProblem, manifestMismatch, parseManifest } from '../domain/operations/backup.js';
import type { BackupManifest, BackupManifestEntry } from '../domain/operations/backup.js';

/** Largest manifest read (about a million entries); anything larger is not one this version wrote. */
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

/** A restore that was refused or failed; the message says why and what to do, for the command line. */
export class RestoreError extends Error {
  override readonly name = 'RestoreError';
}

/** Checks `archive` whole without writing anything; resolves with its manifest or rejects with a RestoreError. */
export async function verifyArchive(archive: string): Promise<BackupManifest> {
  await checkReadable(archive);
  return readArchive(archive, undefined);
}

/**
 * Restores `archive` into `dataDir`, which must be empty or not exist yet. Rejects with a RestoreError, leaving the
 * folder as it was, when the folder is not empty or the archive is damaged or truncated.
 */
export async function restoreArchive(archive: string, dataDir: string): Promise<BackupManifest> {
  await checkReadable(archive);
  const existed = await checkEmptyTarget(dataDir);
  const manifest = await readArchive(archive, undefined);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(join(dataDir, '.restoring-'));
  const moved: string[] = [];
  try {
    await readArchive(archive, staging);
    for (const item of await readdir(staging)) {
      await rename(join(staging, item), join(dataDir, item));
      moved.push(item);
    }
    await rm(staging, { recursive: true, force: true });
    return manifest;
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    for (const item of moved) await rm(join(dataDir, item), { recursive: true, force: true });
    if (!existed) await rm(dataDir, { recursive: true, force: true });
    throw err instanceof RestoreError ? err : new RestoreError(`the restore failed and nothing was kept: ${describe(err)}`, { cause: err });
  }
}

async function checkReadable(archive: string): Promise<void> {
  const info = await stat(archive).catch((err: unknown) => {
    throw new RestoreError(`cannot read the archive ${archive}: ${describe(err)}`);
  });
  if (!info.isFile()) throw new RestoreError(`${archive} is not a file`);
}

/** True when the folder exists (and is empty); a folder with anything in it is refused, so nothing is overwritten. */
async function checkEmptyTarget(dataDir: string): Promise<boolean> {
  let items: string[];
  try {
    items = await readdir(dataDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'ENOTDIR') throw new RestoreError(`${dataDir} is a file, not a data folder`);
    throw new RestoreError(`cannot read the data folder ${dataDir}: ${describe(err)}`);
  }
  if (items.length > 0) {
    const shown = items.slice(0, 5).join(', ') + (items.length > 5 ? `, and ${items.length - 5} more` : '');
    throw new RestoreError(`the data folder ${dataDir} is not empty (it holds ${shown}): restore only into an empty or new folder, so that nothing is overwritten`);
  }
  return true;
}

/** Reads every entry of the archive, hashing it (and writing it under `target` when given), then checks the manifest. */
async function readArchive(archive: string, target: string | undefined): Promise<BackupManifest> {
  const extract = tar.extract();
  const reading = pipeline(createReadStream(archive), createGunzip(), extract);
  // Whatever fails first (the file, the decompression, the tar format) ends the loop below with its error.
  reading.catch((err: unknown) => extract.destroy(err as Error));
  const read: BackupManifestEntry[] = [];
  const names = new Set<string>();
  let manifestText: string | undefined;
  try {
    for await (const entry of extract) {
      const { name, type } = entry.header;
      if (manifestText !== undefined) throw new RestoreError(`the archive is damaged: it holds ${name} after its manifest`);
      if (type !== 'file') throw new RestoreError(`the archive is damaged: ${name} is a ${String(type)}, not a file`);
      if (name === MANIFEST_NAME) {
        manifestText = await readText(entry as AsyncIterable<Buffer>);
        continue;
      }
      const problem = entryNameProblem(name);
      if (problem !== null) throw new RestoreError(`the archive cannot be restored: ${problem}`);
      if (names.has(name)) throw new RestoreError(`the archive is damaged: it holds ${name} twice`);
      names.add(name);
      read.push(await consume(entry as AsyncIterable<Buffer>, name, target === undefined ? undefined : join(target, ...name.split('/'))));
    }
    await reading;
  } catch (err) {
    await reading.catch(() => undefined);
    throw err instanceof RestoreError ? err : new RestoreError(damageMessage(err), { cause: err });
  }
  if (manifestText === undefined) throw new RestoreError('the archive has no manifest: it is truncated or not a Junction backup, and was not restored');
  const parsed = parseManifest(manifestText);
  if ('problem' in parsed) throw new RestoreError(`the archive cannot be restored: ${parsed.problem}`);
  const mismatch = manifestMismatch(parsed.manifest, read);
  if (mismatch !== null) throw new RestoreError(`the archive is damaged and was not restored: ${mismatch}`);
  return parsed.manifest;
}

/** Hashes one entry's bytes, writing them to `file` (new, mode 0600) when given. */
async function consume(entry: AsyncIterable<Buffer>, name: string, file: string | undefined): Promise<BackupManifestEntry> {
  const hash = createHash('sha256');
  let size = 0;
  let out;
  if (file !== undefined) {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    out = createWriteStream(file, { flags: 'wx', mode: 0o600, flush: true });
  }
  try {
    for await (const chunk of entry) {
      hash.update(chunk);
      size += chunk.length;
      if (out !== undefined && !out.write(chunk)) await once(out, 'drain');
    }
  } finally {
    if (out !== undefined) {
      out.end();
      await once(out, 'close');
    }
  }
  return { name, size, sha256: hash.digest('hex') };
}

async function readText(entry: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry) {
    size += chunk.length;
    if (size > MAX_MANIFEST_BYTES) throw new RestoreError('the archive cannot be restored: its manifest is larger than any this version writes');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What a failure of the file, gzip or tar layer means for the person restoring. */
function damageMessage(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'Z_BUF_ERROR') return 'the archive is truncated (it ends before its last entry) and was not restored';
  if (code === 'Z_DATA_ERROR') return `the archive is damaged (its compressed data does not check out: ${describe(err)}) and was not restored`;
  if (code !== undefined && code.startsWith('E')) return `cannot read the archive: ${describe(err)}`;
  return `the archive is damaged or truncated (${describe(err)}) and was not restored`;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
