/**
 * Opening one SQLite file the way every SQLite store here does: its folder created (0700), write-ahead logging, the
 * store's durability and vacuum mode, its schema and statements, and the checkpoints moved off the main thread
 * (checkpointer.ts); a failure closes what was opened and names the file and what to do about it. Also the mapping of
 * SQLite's errors to the stores' errors, and running a synchronous unit of work against an open file.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import type { Logger } from 'pino';
import { StoreError, StoreOpenError, UniqueConstraintError } from '../store.js';
import { Checkpointer, closeWithCheckpoint } from './checkpointer.js';

export interface SqliteFileOptions<T> {
  file: string;
  /** The store's name in its errors (`transactions`, `audits`, ...). */
  collection: string;
  /** What the file is, in messages: `transaction log`, `audit log`, `body store`, `audit outbox`. */
  what: string;
  /** The sentence that follows a failure to open: what the admin can do. */
  advice: string;
  /** NORMAL loses nothing when the process dies in WAL mode (only a power cut can lose the last commits); FULL not even then. */
  synchronous: 'NORMAL' | 'FULL';
  /** Incremental vacuum, for stores that drop old rows (it must precede the first table: SQLite fixes it at creation). */
  incrementalVacuum: boolean;
  /** Checkpoints in a worker thread every `intervalMs` (none: SQLite checkpoints on commit, as it does by default). */
  checkpoints?: { intervalMs: number; logger: Logger };
  /** Whether a folder that cannot be created is reported as this store's open error (else the file system's own). */
  folderErrorIsOpenError: boolean;
  /** The store's own pragmas, checks, schema and prepared statements; throwing fails the open. */
  prepare: (db: SqliteDatabase) => T;
}

/** How the logs (transactions, audits) open their files: they drop old rows, checkpoint in the background, and say how to recover. */
export const LOG_FILE = {
  advice: 'Restore it from a backup or move it aside to start with an empty log.',
  synchronous: 'NORMAL',
  incrementalVacuum: true,
  folderErrorIsOpenError: true,
} as const satisfies Partial<SqliteFileOptions<unknown>>;

/** An open SQLite file, with what its store prepared on it. */
export interface SqliteFile<T> {
  readonly db: SqliteDatabase;
  readonly prepared: T;
  /** Stops the checkpoints, checkpoints and truncates the write-ahead log, and closes the connection. */
  close(): Promise<void>;
}

export async function openSqliteFile<T>(options: SqliteFileOptions<T>): Promise<SqliteFile<T>> {
  const { file, collection, what } = options;
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  } catch (err) {
    if (!options.folderErrorIsOpenError) throw err;
    throw new StoreOpenError(collection, file, `Cannot create the folder of ${file}: ${(err as Error).message}.`, { cause: err });
  }
  let db: SqliteDatabase | undefined;
  let prepared: T;
  try {
    db = new Database(file);
    if (options.incrementalVacuum) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous}`);
    prepared = options.prepare(db);
  } catch (err) {
    db?.close();
    throw new StoreOpenError(collection, file, `Cannot open the ${what} ${file}: ${(err as Error).message}. ${options.advice}`, { cause: err });
  }
  const opened = db;
  const { checkpoints } = options;
  let checkpointer: Checkpointer | null = null;
  if (checkpoints !== undefined) {
    // The service's connection never checkpoints: the worker does, unless it cannot run.
    opened.pragma('wal_autocheckpoint = 0');
    checkpointer = new Checkpointer({
      file,
      intervalMs: checkpoints.intervalMs,
      logger: checkpoints.logger,
      onFailure: () => {
        if (opened.open) opened.pragma('wal_autocheckpoint = 1000');
      },
    });
  }
  return {
    db: opened,
    prepared,
    close: async () => {
      if (checkpoints !== undefined) await closeWithCheckpoint(opened, checkpointer, checkpoints.logger, what);
      else if (opened.open) opened.close();
    },
  };
}

/** Whether `err` is SQLite refusing a second row with the same unique key. */
export function isUniqueClash(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** SQLite's error as the store's: a duplicate id is a `UniqueConstraintError`, anything else a `StoreError` naming the action. */
export function toStoreError(collection: string, action: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  if (isUniqueClash(err)) return new UniqueConstraintError(collection, '_id', { cause: err });
  const message = err instanceof Error ? err.message : String(err);
  return new StoreError(`${collection}: ${action} failed: ${message}`, { cause: err });
}

/**
 * Runs one synchronous unit of work on an open file's statements, its failures as the store's errors; rejects with
 * `notOpen` when the file is not open.
 */
export function runOnFile<S, T>(statements: S | null, db: SqliteDatabase | null, collection: string, notOpen: string, action: string, work: (statements: S, db: SqliteDatabase) => T): Promise<T> {
  if (db === null || statements === null) return Promise.reject(new StoreError(`${collection}: ${notOpen}`));
  try {
    return Promise.resolve(work(statements, db));
  } catch (err) {
    return Promise.reject(toStoreError(collection, action, err));
  }
}
