/**
 * The audit log on SQLite (better-sqlite3), built like the transaction log: one WAL database file, writes group
 * committed (group-commit.ts), checkpoints in a worker (checkpointer.ts). A row per audit holds the event's filter
 * fields as indexed columns and the record as JSON; a term table holds the participants' and objects' values (one
 * row per distinct value, keyed by value then time) so a page of one user's or one patient's audits reads an index;
 * a small code table, written in the same commit as each audit that brings a new code, answers `codesSeen()`.
 *
 * Every read is a short indexed statement, or runs in windows that yield to the event loop between them (filters
 * SQL cannot check, streams, retention), so no export or scan of millions of audits holds the service for long.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import type { Logger } from 'pino';
import { StoreError } from '../store.js';
import { newObjectId } from '../object-ids.js';
import type { AuditCodesSeen, AuditFilter, AuditLog, AuditPageOptions, AuditRecord, NewAudit } from '../audits.js';
import { CHECKPOINT_INTERVAL_MS } from './checkpointer.js';
import { isUniqueClash, LOG_FILE, openSqliteFile, runOnFile, toStoreError as sqliteStoreError } from './database-file.js';
import type { SqliteFile } from './database-file.js';
import { GroupCommit } from './group-commit.js';
import { auditPageBounds, auditRows, checkedAuditRows, codesSeenOf, decodeAudit } from '../audit-rows.js';
import type { AuditRows, EncodedAudit, StoredCodeRow } from '../audit-rows.js';
import { auditQuery, auditSelect as select } from './audit-query.js';
import type { AuditQuery } from './audit-query.js';
import type { SqlValue } from './where.js';
import { takePage } from '../take-page.js';

const COLLECTION = 'audits';
/** Rows read per statement by a stream, and most rows one statement examines for a filter SQL cannot check. */
const STREAM_BATCH = 500;
/** As the transaction log's SCAN_WINDOW: decoding 2,000 records keeps each pause of the event loop near 30 ms. */
const SCAN_WINDOW = 2000;
/** Free pages given back to the file system after each retention batch (bounded, so each batch stays short). */
const VACUUM_PAGES = 1000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audits (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  ts INTEGER NOT NULL,
  event_id TEXT,
  event_type TEXT,
  outcome TEXT,
  action TEXT,
  source TEXT,
  doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_time ON audits (ts, id);
CREATE INDEX IF NOT EXISTS audit_event_id ON audits (event_id, ts, id);
CREATE INDEX IF NOT EXISTS audit_event_type ON audits (event_type, ts, id);
CREATE INDEX IF NOT EXISTS audit_outcome ON audits (outcome, ts, id);
CREATE INDEX IF NOT EXISTS audit_action ON audits (action, ts, id);
CREATE INDEX IF NOT EXISTS audit_source ON audits (source, ts, id);
CREATE TABLE IF NOT EXISTS audit_terms (
  kind INTEGER NOT NULL,
  value TEXT NOT NULL,
  ts INTEGER NOT NULL,
  id TEXT NOT NULL,
  PRIMARY KEY (kind, value, ts, id)
) WITHOUT ROWID;
DROP INDEX IF EXISTS audit_terms_time;
CREATE TABLE IF NOT EXISTS audit_codes (
  seq INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  code TEXT NOT NULL,
  code_system_name TEXT,
  display_name TEXT,
  UNIQUE (kind, code)
);
`;

interface Row {
  id: string;
  ts: number;
  doc: string;
}


interface Statements {
  insert: Statement;
  insertIfNew: Statement;
  term: Statement;
  code: Statement;
  get: Statement<[string], Row>;
  codes: Statement<[], StoredCodeRow>;
  /** The oldest audits before a time, at most a retention batch of them. */
  oldest: Statement<[number, number], Row>;
  dropTerm: Statement<[number, string, number, string]>;
  drop: Statement<[string]>;
}

export interface SqliteAuditLogOptions {
  /** The database file; its folder is created (mode 0700) when missing. */
  file: string;
  logger: Logger;
  /** How often the background worker checkpoints the write-ahead log; default CHECKPOINT_INTERVAL_MS (100 ms). */
  checkpointIntervalMs?: number;
  /** Most rows one statement examines for a filter SQL cannot check; default SCAN_WINDOW (tests use a small one). */
  scanWindowRows?: number;
  /** The clock of new ids (the time an audit was stored, as OpenHIM's ObjectIds); tests pass their own. */
  now?: () => number;
}

/** Creates the SQLite audit log; nothing touches the disk until `open()`. */
export function createSqliteAuditLog(options: SqliteAuditLogOptions): AuditLog {
  return new SqliteAuditLog(options.file, options.logger, options.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS, options.scanWindowRows ?? SCAN_WINDOW, options.now ?? Date.now);
}

class SqliteAuditLog implements AuditLog {
  #db: SqliteDatabase | null = null;
  #statements: Statements | null = null;
  /** Writes one audit's rows; the group commit isolates it in a savepoint only if a write of its batch fails. */
  #store: ((rows: AuditRows, ifNew: boolean) => boolean) | null = null;
  /** `kind code` of the codes already in audit_codes, so an audit writes that table only for a code's first use. */
  #knownCodes = new Set<string>();
  #opening: Promise<void> | null = null;
  #file: SqliteFile<Statements> | null = null;
  readonly #commits = new GroupCommit(
    () => this.#db,
    // Nothing of the failed batch is stored, so the codes it brought are not either.
    () => this.#loadKnownCodes(),
    undefined,
    true,
  );

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
    private readonly checkpointIntervalMs: number,
    private readonly scanWindow: number,
    private readonly now: () => number,
  ) {}

  open(): Promise<void> {
    this.#opening ??= this.#load().catch((err: unknown) => {
      this.#opening = null;
      throw err;
    });
    return this.#opening;
  }

  /** Commits what is queued, checkpoints the write-ahead log and closes the file. Safe to call twice. */
  async close(): Promise<void> {
    this.#commits.flush();
    const file = this.#file;
    this.#db = null;
    this.#statements = null;
    this.#store = null;
    this.#opening = null;
    this.#file = null;
    await file?.close();
  }

  add(audit: NewAudit): Promise<AuditRecord> {
    let record: AuditRecord;
    let rows: AuditRows;
    try {
      record = { ...audit, _id: newObjectId(new Date(this.now())) };
      rows = checkedAuditRows(record);
    } catch (err) {
      return Promise.reject(toStoreError('add', err));
    }
    return this.#insertNew('add', rows).then((id) => {
      record._id = id;
      return record;
    });
  }

  addEncoded(encoded: EncodedAudit): Promise<string> {
    const columns = encoded?.columns as Partial<EncodedAudit['columns']> | undefined;
    if (typeof columns?.ts !== 'number' || !Number.isFinite(columns.ts) || typeof columns.doc !== 'string' || !Array.isArray(encoded.terms) || !Array.isArray(encoded.codes)) {
      return Promise.reject(new StoreError(`${COLLECTION}: an encoded audit needs its columns (a finite ts and the doc), terms and codes`));
    }
    return this.#insertNew('add', { columns: { id: newObjectId(new Date(this.now())), ...encoded.columns }, terms: encoded.terms, codes: encoded.codes });
  }

  /** Writes a new audit's rows under the id they carry, or another if that one is taken; resolves with the id used. */
  #insertNew(action: string, rows: AuditRows): Promise<string> {
    return this.#write(action, (store) => {
      // 64 random bits make a clash all but impossible; should one happen, the audit takes another id.
      for (let attempt = 0; ; attempt++) {
        try {
          store(rows, false);
          return rows.columns.id;
        } catch (err) {
          if (attempt >= 2 || !isUniqueClash(err)) throw err;
          rows.columns.id = newObjectId(new Date(this.now()));
        }
      }
    });
  }

  restore(audit: AuditRecord): Promise<boolean> {
    let rows: AuditRows;
    try {
      if (typeof audit._id !== 'string' || audit._id === '') throw new StoreError(`${COLLECTION}: an audit to restore needs its _id`);
      rows = checkedAuditRows(audit);
    } catch (err) {
      return Promise.reject(toStoreError('restore', err));
    }
    return this.#write('restore', (store) => store(rows, true));
  }

  get(id: string): Promise<AuditRecord | null> {
    return this.#run('get', (s) => {
      if (typeof id !== 'string') return null;
      const row = s.get.get(id);
      return row === undefined ? null : decodeAudit(row.id, row.ts, row.doc);
    });
  }

  async page(filter: AuditFilter, options: AuditPageOptions): Promise<AuditRecord[]> {
    const { skip, limit } = auditPageBounds(options);
    const query = this.#query('page', filter);
    if (query.check === null) {
      return this.#run('page', (_s, db) =>
        db
          .prepare<SqlValue[], Row>(`${select(query)} LIMIT ? OFFSET ?`)
          .all(...query.fromParams, ...query.params, limit, skip)
          .map((row) => decodeAudit(row.id, row.ts, row.doc)),
      );
    }
    return takePage(this.#matching(query, Math.min(this.scanWindow, 250), this.scanWindow), skip, limit);
  }

  async *stream(filter: AuditFilter): AsyncIterable<AuditRecord> {
    const query = this.#query('stream', filter);
    const size = query.check === null ? STREAM_BATCH : this.scanWindow;
    yield* this.#matching(query, Math.min(size, STREAM_BATCH), size);
  }

  codesSeen(): Promise<AuditCodesSeen> {
    return this.#run('codesSeen', (s) => codesSeenOf(s.codes.all()));
  }

  dropBefore(cutoff: Date, limit: number): Promise<number> {
    if (!(cutoff instanceof Date) || Number.isNaN(cutoff.getTime())) return Promise.reject(new StoreError(`${COLLECTION}: dropBefore needs a date`));
    if (!Number.isSafeInteger(limit) || limit < 1) return Promise.reject(new StoreError(`${COLLECTION}: dropBefore needs a limit of 1 or more, not ${String(limit)}`));
    const before = cutoff.getTime();
    return this.#run('dropBefore', (s, db) => {
      const removed = db.transaction(() => {
        // Terms carry no index by time (it cost a b-tree write per term on every audit stored), so each audit's terms
        // are worked out again from its document, as auditRows wrote them, and deleted by their key.
        const doomed = s.oldest.all(before, limit);
        for (const row of doomed) {
          for (const term of auditRows(decodeAudit(row.id, row.ts, row.doc)).terms) s.dropTerm.run(term.kind, term.value, row.ts, row.id);
          s.drop.run(row.id);
        }
        return doomed.length;
      })();
      if (removed > 0) db.pragma(`incremental_vacuum(${VACUUM_PAGES})`);
      return removed;
    });
  }

  /**
   * The records a query matches, newest first, read `first` rows at a time at first, then doubling up to `max`, each
   * statement continuing after the last row read (keyset), with a turn of the event loop between statements.
   */
  async *#matching(query: AuditQuery, first: number, max: number): AsyncGenerator<AuditRecord> {
    let after: { ts: number; id: string } | null = null;
    let size = first;
    for (;;) {
      const last: { ts: number; id: string } | null = after;
      const rows: Row[] = await this.#run('read', (_s, db): Row[] => {
        const keyset = last === null ? '' : ` AND (${query.ts}, ${query.id}) < (?, ?)`;
        const params: SqlValue[] = [...query.fromParams, ...query.params, ...(last === null ? [] : [last.ts, last.id])];
        return db.prepare<SqlValue[], Row>(`${select(query, keyset)} LIMIT ${size}`).all(...params);
      });
      for (const row of rows) {
        const record = decodeAudit(row.id, row.ts, row.doc);
        if (query.check === null || query.check(record)) yield record;
      }
      const tail = rows.at(-1);
      if (tail === undefined || rows.length < size) return;
      after = { ts: tail.ts, id: tail.id };
      size = Math.min(max, size * 2);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #query(action: string, filter: AuditFilter): AuditQuery {
    try {
      return auditQuery(filter);
    } catch (err) {
      throw toStoreError(action, err);
    }
  }

  async #load(): Promise<void> {
    const opened = await openSqliteFile<Statements>({
      file: this.file,
      collection: COLLECTION,
      what: 'audit log',
      ...LOG_FILE,
      checkpoints: { intervalMs: this.checkpointIntervalMs, logger: this.logger },
      prepare: (db) => {
        // The term and event-code indexes take writes all over their b-trees; 32 MB of cache keeps their pages warm.
        db.pragma('cache_size = -32000');
        const integrity = db.pragma('quick_check', { simple: true });
        if (integrity !== 'ok') throw new Error(`integrity check failed: ${String(integrity)}`);
        db.exec(SCHEMA);
        return prepare(db);
      },
    });
    const statements = opened.prepared;
    this.#statements = statements;
    this.#store = (rows: AuditRows, ifNew: boolean) => this.#storeRows(statements, rows, ifNew);
    this.#db = opened.db;
    this.#file = opened;
    this.#loadKnownCodes();
  }

  /** Writes one audit's rows (inside its savepoint); false when `ifNew` and the id is already stored. */
  #storeRows(s: Statements, rows: AuditRows, ifNew: boolean): boolean {
    const { columns } = rows;
    if (ifNew) {
      if (s.insertIfNew.run(columns).changes === 0) return false;
    } else {
      s.insert.run(columns);
    }
    for (const term of rows.terms) s.term.run(term.kind, term.value, columns.ts, columns.id);
    const added: string[] = [];
    for (const code of rows.codes) {
      const key = `${code.kind} ${code.code}`;
      if (this.#knownCodes.has(key)) continue;
      // OR IGNORE keeps the first display name seen for a code, as OpenHIM de-duplicates by code.
      s.code.run(code);
      added.push(key);
    }
    for (const key of added) this.#knownCodes.add(key);
    return true;
  }

  #loadKnownCodes(): void {
    const statements = this.#statements;
    this.#knownCodes = new Set(statements === null ? [] : statements.codes.all().map((row) => `${row.kind} ${row.code}`));
  }

  /** Queues one audit's rows for the next group commit; errors become StoreErrors. */
  #write<T>(action: string, work: (store: (rows: AuditRows, ifNew: boolean) => boolean) => T): Promise<T> {
    const store = this.#store;
    if (store === null) return Promise.reject(new StoreError(`${COLLECTION}: the audit log is not open`));
    return this.#commits.run(() => work((rows, ifNew) => store(rows, ifNew))).catch((err: unknown) => {
      throw toStoreError(action, err);
    });
  }

  /** Runs one synchronous unit of work and maps SQLite's errors to StoreErrors. */
  #run<T>(action: string, work: (statements: Statements, db: SqliteDatabase) => T): Promise<T> {
    return runOnFile(this.#statements, this.#db, COLLECTION, 'the audit log is not open', action, work);
  }

}

function prepare(db: SqliteDatabase): Statements {
  const fields = '(id, ts, event_id, event_type, outcome, action, source, doc) VALUES (@id, @ts, @event_id, @event_type, @outcome, @action, @source, @doc)';
  return {
    insert: db.prepare(`INSERT INTO audits ${fields}`),
    insertIfNew: db.prepare(`INSERT OR IGNORE INTO audits ${fields}`),
    term: db.prepare('INSERT OR IGNORE INTO audit_terms (kind, value, ts, id) VALUES (?, ?, ?, ?)'),
    code: db.prepare('INSERT OR IGNORE INTO audit_codes (kind, code, code_system_name, display_name) VALUES (@kind, @code, @codeSystemName, @displayName)'),
    get: db.prepare<[string], Row>('SELECT id, ts, doc FROM audits WHERE id = ?'),
    codes: db.prepare<[], StoredCodeRow>('SELECT kind, code, code_system_name, display_name FROM audit_codes ORDER BY seq'),
    oldest: db.prepare<[number, number], Row>('SELECT id, ts, doc FROM audits WHERE ts < ? ORDER BY ts, id LIMIT ?'),
    dropTerm: db.prepare<[number, string, number, string]>('DELETE FROM audit_terms WHERE kind = ? AND value = ? AND ts = ? AND id = ?'),
    drop: db.prepare<[string]>('DELETE FROM audits WHERE id = ?'),
  };
}




function toStoreError(action: string, err: unknown): StoreError {
  return sqliteStoreError(COLLECTION, action, err);
}
