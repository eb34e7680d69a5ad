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

/**
 * A path is `<day>/<channel>/<body id>` (body-files.ts), so the path index alone finds a day's or a channel's bodies by
 * prefix. Files made before kept a second index on (day, channel): it cost each body one more B-tree insert (about a
 * fifth of a put, measured in docs/BENCHMARKS.md, "Issue 19: storage cost per transaction"), so it is dropped on open;
 * the day and channel columns stay, written as before, so an older Junction can still read the file.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS bodies (path TEXT NOT NULL UNIQUE, day TEXT NOT NULL, channel TEXT NOT NULL, data BLOB NOT NULL);
DROP INDEX IF EXISTS bodies_day_channel;
`;
/** Rows per retention delete: keeps each pause of the event loop short. */
const BATCH = 500;
/** `yyyy-mm-dd`, the first segment of every path. */
const DAY_LENGTH = 10;

/** A key after every path under `prefix/` and before any other path above them ("0" follows "/" in ASCII). */
function afterPrefix(prefix: string): string {
  return `${prefix}0`;
}

interface Statements {
  put: Statement<[string, string, string, Buffer]>;
  get: Statement<[string], { data: Buffer }>;
  /** The first path at or after a key: walks the days one index lookup each. */
  firstFrom: Statement<[string], { path: string }>;
  /** Up to BATCH bodies whose paths lie in [from, to). */
  removeRange: Statement<[string, string]>;
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
        firstFrom: db.prepare('SELECT path FROM bodies WHERE path >= ? ORDER BY path LIMIT 1'),
        removeRange: db.prepare(`DELETE FROM bodies WHERE rowid IN (SELECT rowid FROM bodies WHERE path >= ? AND path < ? LIMIT ${BATCH})`),
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
    const { firstFrom } = this.#ready();
    const days: string[] = [];
    for (let row = firstFrom.get(''); row !== undefined; ) {
      const day = row.path.slice(0, DAY_LENGTH);
      days.push(day);
      row = firstFrom.get(afterPrefix(day));
    }
    return days;
  }

  async removeDaysBefore(day: string): Promise<void> {
    // Every path of an earlier day sorts before the bare day ("2026-11-01/..." < "2026-11-02").
    await this.#deleteRange('', day);
  }

  async removeChannelBefore(channelId: string, day: string): Promise<string[]> {
    const touched: string[] = [];
    for (const old of this.days().filter((d) => d < day)) {
      const prefix = `${old}/${channelId}`;
      if (await this.#deleteRange(`${prefix}/`, afterPrefix(prefix))) touched.push(old);
    }
    return touched;
  }

  /** Deletes the bodies whose paths lie in [from, to), a batch per event-loop turn; true when there were any. */
  async #deleteRange(from: string, to: string): Promise<boolean> {
    let any = false;
    for (;;) {
      const removed = this.#ready().removeRange.run(from, to).changes;
      if (removed > 0) any = true;
      if (removed < BATCH) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.#readyDb().pragma('incremental_vacuum');
    return any;
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
