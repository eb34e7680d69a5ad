/**
 * Small bodies in one SQLite file (`bodies.sqlite`) instead of one file each. A busy clinic sends hundreds of
 * thousands of small messages a month; two files per transaction cost more CPU than everything else the proxy
 * stores (measured in docs/BENCHMARKS.md) and make backups slow. Bodies above the small limit stay files.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Logger } from 'pino';
import type { SmallBodyStore } from '../bodies/body-files.js';
import { StoreError } from '../store.js';
import { CHECKPOINT_INTERVAL_MS } from './checkpointer.js';
import { openSqliteFile } from './database-file.js';
import type { SqliteFile } from './database-file.js';
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
  #file: SqliteFile<Statements> | null = null;
  readonly #commits = new GroupCommit(() => this.#db);

  constructor(private readonly options: SqliteBodyBlobsOptions) {}

  async open(): Promise<void> {
    if (this.#db !== null) return;
    const { file, logger } = this.options;
    const opened = await openSqliteFile<Statements>({
      file,
      collection: 'bodies',
      what: 'body store',
      advice: 'Restore it from a backup or move it aside.',
      synchronous: 'NORMAL',
      incrementalVacuum: true,
      checkpoints: { intervalMs: this.options.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS, logger },
      folderErrorIsOpenError: false,
      prepare: (db) => {
        db.exec(SCHEMA);
        return {
          put: db.prepare('INSERT INTO bodies (path, day, channel, data) VALUES (?, ?, ?, ?)'),
          get: db.prepare('SELECT data FROM bodies WHERE path = ?'),
          firstFrom: db.prepare('SELECT path FROM bodies WHERE path >= ? ORDER BY path LIMIT 1'),
          removeRange: db.prepare(`DELETE FROM bodies WHERE rowid IN (SELECT rowid FROM bodies WHERE path >= ? AND path < ? LIMIT ${BATCH})`),
        };
      },
    });
    this.#statements = opened.prepared;
    this.#db = opened.db;
    this.#file = opened;
  }

  async close(): Promise<void> {
    this.#commits.flush();
    const file = this.#file;
    this.#db = null;
    this.#statements = null;
    this.#file = null;
    await file?.close();
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
