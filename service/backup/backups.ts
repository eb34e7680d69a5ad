/**
 * Backups of the whole appliance, online: a download (`GET /backup`) or a scheduled copy into `backup.folder`, one at
 * a time. Each first has the storage take consistent copies of its stores into a hidden staging folder in the data
 * folder (storage/embedded/snapshot.ts: the NeDB collections all as of one moment, each SQLite file by `VACUUM INTO`
 * on its own thread, transactions before bodies so every stored transaction's bodies are in the copy), then streams the archive (archive-writer.ts) from those
 * copies and from the files that are written once and never changed: body files, `tls/` and the keystore.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { backupFileName, backupsToDelete, isBackupFileName } from '../domain/operations/backup.js';
import { parsePollingSchedule } from '../domain/channels/polling-schedule.js';
import type { BackupFile, BackupRun, BackupStatus, BackupTrigger } from '../contracts/backup.js';
import type { StorageBackup } from '../storage/engine.js';
import type { ScheduledJob } from '../schedulers/registry.js';
import { writeArchive } from './archive-writer.js';
import type { ArchiveSource } from './archive-writer.js';

/**
 * Files and folders of the data folder copied as they are (written once, or replaced whole by temp+rename): the
 * body files, the generated server certificate, the keystore and the keystore's secret. The one list to change when
 * another part keeps files in the data folder.
 */
export const FILES_COPIED_AS_THEY_ARE = ['bodies', 'tls', 'keystore', 'keystore.secret'] as const;

const STAGING_PREFIX = '.backup-staging-';
const PARTIAL_SUFFIX = '.partial';
const RECENT_SHOWN = 50;

export interface BackupsOptions {
  dataDir: string;
  /** The storage's consistent copy of its stores (storage/snapshots.ts), or why backups are refused. */
  storage: StorageBackup;
  junctionVersion: string;
  settings: { folder: string; schedule: string; keep: number };
  logger: Logger;
  now?: () => Date;
}

interface Prepared {
  staging: string;
  sources: ArchiveSource[];
}

/** Takes backups one at a time and tells how the current and last ones went. */
export class Backups {
  readonly #o: BackupsOptions;
  readonly #now: () => Date;
  #current: BackupRun | undefined;
  #state: BackupStatus['state'] = 'idle';
  #last: BackupRun | undefined;
  /** Settles when the run in progress has ended; scheduled runs wait on it rather than being refused. */
  #idle: Promise<void> = Promise.resolve();

  constructor(options: BackupsOptions) {
    this.#o = { ...options };
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * The folder, schedule and count saved in the console (issue 35): the next run writes and prunes with them. The
   * caller re-registers `job()`, whose schedule may have changed or been turned off.
   */
  useSettings(settings: BackupsOptions['settings']): void {
    this.#o.settings = settings;
  }

  /** What is running now, how the last run ended, the schedule and the scheduled backups kept. */
  async status(): Promise<BackupStatus> {
    const { folder, schedule, keep } = this.#o.settings;
    return {
      state: this.#state,
      ...(this.#current === undefined ? {} : { current: { ...this.#current } }),
      ...(this.#last === undefined ? {} : { last: { ...this.#last } }),
      schedule: { enabled: folder !== '', folder, schedule, keep },
      recent: await this.recent(),
    };
  }

  /** The scheduled backups in `backup.folder`, newest first. */
  async recent(): Promise<BackupFile[]> {
    const { folder } = this.#o.settings;
    if (folder === '') return [];
    const names = (await readdir(folder).catch(() => [] as string[])).filter(isBackupFileName).sort().reverse().slice(0, RECENT_SHOWN);
    const files: BackupFile[] = [];
    for (const name of names) {
      const info = await stat(join(folder, name)).catch(() => null);
      if (info !== null) files.push({ name, size: info.size, created: info.mtime.toISOString() });
    }
    return files;
  }

  /**
   * Starts a download: the stores are copied before this resolves (so a failure there is an error answer), then the
   * archive streams through the returned stream. Refused with 409 while another backup runs.
   */
  async download(): Promise<{ fileName: string; stream: Readable }> {
    const run = this.#claim('download');
    let prepared: Prepared;
    try {
      prepared = await this.#prepare(run);
    } catch (err) {
      this.#finish(run, err);
      throw err;
    }
    const out = new PassThrough();
    void this.#write(run, prepared, out).catch(() => undefined);
    return { fileName: run.file, stream: out };
  }

  /** Writes one backup into `backup.folder` (temp file, then rename) and deletes the oldest beyond `backup.keep`. */
  async runScheduled(): Promise<void> {
    const { folder, keep } = this.#o.settings;
    if (folder === '') throw new Error('backup.folder is not set');
    // A download in progress is finished first: the schedule waits rather than skips.
    while (this.#state !== 'idle') await this.#idle;
    const run = this.#claim('schedule');
    const final = join(folder, run.file);
    const partial = `${final}.${randomBytes(4).toString('hex')}${PARTIAL_SUFFIX}`;
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await this.#removeStalePartials(folder);
      const prepared = await this.#prepare(run);
      // flush: the archive is on disk before its name says it is complete.
      await this.#write(run, prepared, createWriteStream(partial, { flags: 'wx', mode: 0o600, flush: true }));
      await rename(partial, final);
    } catch (err) {
      // A folder that cannot be made fails this removal too (ENOTDIR): the run must still end, or it holds every
      // later backup and the service's stop forever.
      await rm(partial, { force: true }).catch(() => undefined);
      if (this.#current === run) this.#finish(run, err);
      throw err;
    }
    for (const old of backupsToDelete(await readdir(folder), keep)) {
      await unlink(join(folder, old)).catch((err: unknown) => this.#o.logger.warn({ err, file: old }, 'could not delete an old backup'));
    }
    this.#o.logger.info({ file: final }, 'scheduled backup written');
  }

  /** The scheduled job (`backup.schedule`), or undefined when `backup.folder` is not set. */
  job(): ScheduledJob | undefined {
    const { folder, schedule } = this.#o.settings;
    if (folder === '') return undefined;
    const parsed = parsePollingSchedule(schedule);
    // The configuration check refuses a schedule that does not parse, so this is only a guard.
    if (parsed === null) throw new Error(`backup.schedule: "${schedule}" is neither a cron expression nor an interval`);
    const run = () => this.runScheduled();
    return parsed.kind === 'cron' ? { name: 'backup', cron: parsed.expression, run } : { name: 'backup', everyMs: parsed.ms, run };
  }

  /** Cuts short the archive being written (the service is stopping): a download ends early, a scheduled file is removed. */
  abort(): void {
    this.#out?.destroy(new Error('Junction is stopping'));
  }

  /** Waits for a run in progress (used when the service stops). */
  async settled(): Promise<void> {
    while (this.#state !== 'idle') await this.#idle;
  }

  #claim(trigger: BackupTrigger): BackupRun {
    if ('unavailable' in this.#o.storage) throw new AppError('CONFLICT', this.#o.storage.unavailable);
    if (this.#current !== undefined) {
      throw new AppError('CONFLICT', `A backup is already being taken (${this.#current.trigger}, started ${this.#current.startedAt}); try again when it has finished`);
    }
    const started = this.#now();
    const run: BackupRun = { trigger, startedAt: started.toISOString(), file: backupFileName(started), entriesDone: 0, entriesTotal: 0, bytesDone: 0, bytesTotal: 0 };
    this.#current = run;
    this.#state = 'preparing';
    let release: () => void = () => undefined;
    this.#idle = new Promise((resolve) => {
      release = resolve;
    });
    this.#release = release;
    return run;
  }

  #release: () => void = () => undefined;
  #out: Writable | undefined;

  #finish(run: BackupRun, err?: unknown): void {
    run.finishedAt = this.#now().toISOString();
    run.outcome = err === undefined ? 'succeeded' : 'failed';
    if (err !== undefined) {
      run.error = err instanceof Error ? err.message : JSON.stringify(err);
      this.#o.logger.error({ err, trigger: run.trigger }, 'backup failed');
    } else {
      this.#o.logger.info({ trigger: run.trigger, file: run.file, entries: run.entriesDone, bytes: run.bytesDone }, 'backup finished');
    }
    this.#last = run;
    this.#current = undefined;
    this.#state = 'idle';
    this.#release();
  }

  /** Copies the stores into a staging folder and lists everything the archive will hold. */
  async #prepare(run: BackupRun): Promise<Prepared> {
    const { dataDir, storage } = this.#o;
    if (!('snapshot' in storage)) throw new Error(storage.unavailable);
    await this.#removeStaleStaging();
    const staging = await mkdtemp(join(dataDir, STAGING_PREFIX));
    try {
      const sources: ArchiveSource[] = [];
      for (const file of await storage.snapshot.snapshot(staging)) sources.push({ name: file, path: join(staging, file) });
      for (const item of FILES_COPIED_AS_THEY_ARE) sources.push(...(await filesUnder(dataDir, item)));
      run.entriesTotal = sources.length;
      for (const source of sources) run.bytesTotal += (await stat(source.path).catch(() => ({ size: 0 }))).size;
      return { staging, sources };
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      throw err;
    }
  }

  /** Streams the archive into `out`; ends the run and removes the staging folder whatever happens. */
  async #write(run: BackupRun, prepared: Prepared, out: Writable): Promise<void> {
    this.#state = 'writing';
    this.#out = out;
    try {
      await writeArchive({
        sources: prepared.sources,
        out,
        junctionVersion: this.#o.junctionVersion,
        created: new Date(run.startedAt),
        onProgress: (p) => {
          run.entriesDone = p.entriesDone;
          run.bytesDone = p.bytesDone;
        },
      });
      this.#finish(run);
    } catch (err) {
      this.#finish(run, err);
      throw err;
    } finally {
      this.#out = undefined;
      await rm(prepared.staging, { recursive: true, force: true });
    }
  }

  /** Staging folders left by a run that a crash interrupted (only one run at a time, so any found now is stale). */
  async #removeStaleStaging(): Promise<void> {
    const { dataDir } = this.#o;
    for (const item of await readdir(dataDir)) {
      if (item.startsWith(STAGING_PREFIX)) await rm(join(dataDir, item), { recursive: true, force: true });
    }
  }

  async #removeStalePartials(folder: string): Promise<void> {
    for (const item of await readdir(folder)) {
      if (item.endsWith(PARTIAL_SUFFIX) && item.startsWith('junction-backup-')) await rm(join(folder, item), { force: true });
    }
  }
}

/** Every regular file at or under `<dataDir>/<item>` (symbolic links are not followed), named relative to the data folder. */
async function filesUnder(dataDir: string, item: string): Promise<ArchiveSource[]> {
  const path = join(dataDir, item);
  const info = await lstat(path).catch(() => null);
  if (info === null) return [];
  if (info.isFile()) return [{ name: toEntryName(dataDir, path), path }];
  if (!info.isDirectory()) return [];
  const found: ArchiveSource[] = [];
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.isDirectory() || entry.isFile()) found.push(...(await filesUnder(dataDir, join(item, entry.name))));
  }
  return found;
}

function toEntryName(dataDir: string, path: string): string {
  return relative(dataDir, path).split(sep).join('/');
}
