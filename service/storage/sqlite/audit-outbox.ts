/**
 * The audit outbox in its own SQLite file (`audit-outbox.sqlite`), apart from the transaction log so a repository
 * that stays down for days never grows or slows the busiest file. Every push commits with `synchronous = FULL`: audit
 * events are few (logins, start and stop, refusals) and each one acknowledged must survive a power cut.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { AuditOutbox, QueuedAuditMessage } from '../audit-outbox.js';
import { StoreError } from '../store.js';
import { openSqliteFile } from './database-file.js';

const SCHEMA = 'CREATE TABLE IF NOT EXISTS queued (seq INTEGER PRIMARY KEY AUTOINCREMENT, message TEXT NOT NULL);';

interface Statements {
  insert: Statement<[string]>;
  dropOldest: Statement<[number]>;
  peek: Statement<[number], QueuedAuditMessage>;
  removeThrough: Statement<[number]>;
  count: Statement<[], { n: number }>;
}

/** The SQLite audit outbox; nothing touches the disk until `open()`. */
export class SqliteAuditOutbox implements AuditOutbox {
  #db: SqliteDatabase | null = null;
  #statements: Statements | null = null;
  /** Kept beside the table so a push never counts rows. */
  #size = 0;

  constructor(private readonly options: { file: string }) {}

  async open(): Promise<void> {
    if (this.#db !== null) return;
    const { file } = this.options;
    const opened = await openSqliteFile({
      file,
      collection: 'auditOutbox',
      what: 'audit outbox',
      advice: 'Move it aside (its unsent audit events are lost) or restore it from a backup.',
      // Every queued event is acknowledged to its recorder: it must survive a power cut too.
      synchronous: 'FULL',
      incrementalVacuum: false,
      folderErrorIsOpenError: false,
      prepare: (db) => {
        db.exec(SCHEMA);
        const statements: Statements = {
          insert: db.prepare('INSERT INTO queued (message) VALUES (?)'),
          dropOldest: db.prepare('DELETE FROM queued WHERE seq IN (SELECT seq FROM queued ORDER BY seq LIMIT ?)'),
          peek: db.prepare('SELECT seq, message FROM queued ORDER BY seq LIMIT ?'),
          removeThrough: db.prepare('DELETE FROM queued WHERE seq <= ?'),
          count: db.prepare('SELECT COUNT(*) AS n FROM queued'),
        };
        return { statements, size: statements.count.get()?.n ?? 0 };
      },
    });
    this.#statements = opened.prepared.statements;
    this.#size = opened.prepared.size;
    this.#db = opened.db;
  }

  push(message: string, maxQueued: number): Promise<number> {
    try {
      const statements = this.#ready();
      // The insert and the drop commit together: the bound holds even across a crash between them.
      const dropped = this.#readyDb().transaction(() => {
        statements.insert.run(message);
        const excess = this.#size + 1 - maxQueued;
        return excess > 0 ? statements.dropOldest.run(excess).changes : 0;
      })();
      this.#size += 1 - dropped;
      return Promise.resolve(dropped);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  peek(limit: number): Promise<QueuedAuditMessage[]> {
    try {
      return Promise.resolve(this.#ready().peek.all(limit));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  removeThrough(seq: number): Promise<void> {
    try {
      this.#size -= this.#ready().removeThrough.run(seq).changes;
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  size(): number {
    return this.#size;
  }

  close(): Promise<void> {
    const db = this.#db;
    this.#db = null;
    this.#statements = null;
    db?.close();
    return Promise.resolve();
  }

  #readyDb(): SqliteDatabase {
    if (this.#db === null) throw new StoreError('the audit outbox is not open');
    return this.#db;
  }

  #ready(): Statements {
    if (this.#statements === null) throw new StoreError('the audit outbox is not open');
    return this.#statements;
  }
}
