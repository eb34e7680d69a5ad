/**
 * Small bodies in one SQLite file (`bodies.sqlite`) instead of one file each. A busy clinic sends hundreds of
 * thousands of small messages a month; two files per transaction cost more CPU than everything else the proxy
 * stores (measured in docs/BENCHMARKS.md) and make backups slow. Bodies above the small limit stay files.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Logger } from 'pino';
import type { SmallBodyStore } from '../bodies/body-files.js';
import { StoreError, StoreOpenError } from '../store.js';
import { CHECKPOINT_INTERVAL_MS, Checkpointer, closeWithCheckpoint } from './checkpointer.js';
import { GroupCommit } from './group-commit.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bodies (path TEXT NOT NULL UNIQUE, day TEXT NOT NULL, channel TEXT NOT NULL, data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS bodies_day_channel ON bodies (day, channel);
`;
/** Rows per retention delete: keeps each pause of the event loop short. */
const BATCH = 500;

interface Statements {
  put: Statement<[string, string, string, Buffer]>;
  get: Statement<[string], { data: Buffer }>;
  days: Statement<[], { day: string }>;
}

export interface SqliteBodyBlobsOptions {
  file: string;
  logger: Logger;
  checkpointIntervalMs?: number;
}

/** The SQLite small-body store; nothing touches the disk until `open()`. */
export class SqliteBodyBlobs implements SmallBodyStore {
  #db: SqliteDatabase | null = null;
  #statements: Statements | null = null;
  #checkpointer: Checkpointer | null = null;
  readonly #commits = new GroupCommit(() => this.#db);

  constructor(private readonly options: SqliteBodyBlobsOptions) {}

  async open(): Promise<void> {
    if (this.#db !== null) return;
    const { file, logger } = this.options;
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    let db: SqliteDatabase | undefined;
    try {
      db = new Database(file);
      db.pragma('auto_vacuum = INCREMENTAL');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec(SCHEMA);
      db.pragma('wal_autocheckpoint = 0');
      this.#statements = {
        put: db.prepare('INSERT INTO bodies (path, day, channel, data) VALUES (?, ?, ?, ?)'),
        get: db.prepare('SELECT data FROM bodies WHERE path = ?'),
        days: db.prepare('SELECT DISTINCT day FROM bodies ORDER BY day'),
      };
    } catch (err) {
      db?.close();
      throw new StoreOpenError('bodies', file, `Cannot open the body store ${file}: ${(err as Error).message}. Restore it from a backup or move it aside.`, { cause: err });
    }
    const opened = db;
    this.#db = db;
    this.#checkpointer = new Checkpointer({
      file,
      intervalMs: this.options.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS,
      logger,
      onFailure: () => {
        if (opened.open) opened.pragma('wal_autocheckpoint = 1000');
      },
    });
  }

  async close(): Promise<void> {
    this.#commits.flush();
    const db = this.#db;
    const checkpointer = this.#checkpointer;
    this.#db = null;
    this.#statements = null;
    this.#checkpointer = null;
    await closeWithCheckpoint(db, checkpointer, this.options.logger, 'body store');
  }

  put(path: string, day: string, channelId: string, data: Buffer): Promise<void> {
    const statements = this.#ready();
    return this.#commits.run(() => {
      statements.put.run(path, day, channelId, data);
    });
  }

  get(path: string): Buffer | null {
    return this.#ready().get.get(path)?.data ?? null;
  }

  days(): string[] {
    return this.#ready().days.all().map((row) => row.day);
  }

  async removeDaysBefore(day: string): Promise<void> {
    await this.#deleteInBatches('day < ?', [day]);
  }

  async removeChannelBefore(channelId: string, day: string): Promise<string[]> {
    const db = this.#readyDb();
    const touched = db.prepare<[string, string], { day: string }>('SELECT DISTINCT day FROM bodies WHERE day < ? AND channel = ? ORDER BY day').all(day, channelId);
    await this.#deleteInBatches('day < ? AND channel = ?', [day, channelId]);
    return touched.map((row) => row.day);
  }

  async #deleteInBatches(where: string, params: string[]): Promise<void> {
    for (;;) {
      const db = this.#readyDb();
      const removed = db.prepare(`DELETE FROM bodies WHERE rowid IN (SELECT rowid FROM bodies WHERE ${where} LIMIT ${BATCH})`).run(...params).changes;
      if (removed < BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.#readyDb().pragma('incremental_vacuum');
  }

  #ready(): Statements {
    if (this.#statements === null) throw new StoreError('bodies: the body store is not open');
    return this.#statements;
  }

  #readyDb(): SqliteDatabase {
    if (this.#db === null) throw new StoreError('bodies: the body store is not open');
    return this.#db;
  }
}
