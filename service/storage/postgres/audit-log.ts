/**
 * The audit log on PostgreSQL, laid out as the SQLite one (audit-schema.ts) and shared by every instance on the
 * database. Writes are grouped as the SQLite engine groups its commits: the audits added in one turn of the event
 * loop (and those added while the previous group was being written) go to the server as one statement, the audit
 * rows, their terms and their new codes passed as arrays and inserted together, so the repository pays one round
 * trip and one commit per group rather than per audit. Should a group fail, its audits are written one statement
 * each, so only the faulty one is refused. Reads are single statements on the indexes, or keyset windows with a turn
 * of the event loop between them (streams, filters SQL cannot check).
 */
import type { Pool } from 'pg';
import { auditPageBounds, auditRows, checkedAuditRows, codesSeenOf, decodeAudit } from '../audit-rows.js';
import type { AuditRows, EncodedAudit, StoredCodeRow } from '../audit-rows.js';
import { auditPlan } from '../audit-plan.js';
import type { AuditPlan } from '../audit-plan.js';
import type { AuditCodesSeen, AuditFilter, AuditLog, AuditPageOptions, AuditRecord, NewAudit } from '../audits.js';
import { newObjectId } from '../object-ids.js';
import { StoreError, UniqueConstraintError } from '../store.js';
import { auditSelect } from './audit-query.js';
import type { AuditKey } from './audit-query.js';
import type { PostgresDatabase } from './database.js';
import { takePage } from '../take-page.js';

const COLLECTION = 'audits';
/** Rows read per statement by a stream, and the first window of a filter SQL cannot check. */
const STREAM_BATCH = 500;
/** Most rows one statement reads for a filter SQL cannot check (as the SQLite engine's window). */
const SCAN_WINDOW = 2000;
/** Most audits in one insert statement; a larger backlog goes in several, one after the other. */
const MAX_GROUP = 1000;
/** Times an added audit takes a new id after a clash before it is refused (64 random bits: never, in practice). */
const ID_ATTEMPTS = 3;

const INSERT_GROUP = `
WITH a AS (
  INSERT INTO audits (id, ts, event_id, event_type, outcome, action, source, doc)
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
  ON CONFLICT (id) DO NOTHING
  RETURNING id
), t AS (
  INSERT INTO audit_terms (kind, value, ts, id)
  SELECT u.kind, u.value, u.ts, u.id FROM unnest($9::smallint[], $10::text[], $11::bigint[], $12::text[]) AS u(kind, value, ts, id)
  WHERE u.id IN (SELECT id FROM a)
  ON CONFLICT DO NOTHING
), c AS (
  INSERT INTO audit_codes (kind, code, code_system_name, display_name)
  SELECT u.kind, u.code, u.system, u.name
  FROM unnest($13::text[], $14::text[], $15::text[], $16::text[], $17::text[]) WITH ORDINALITY AS u(owner, kind, code, system, name, n)
  WHERE u.owner IN (SELECT id FROM a)
  ORDER BY u.n
  ON CONFLICT DO NOTHING
)
SELECT id FROM a`;

const DROP_GROUP = `
WITH t AS (
  DELETE FROM audit_terms x USING unnest($1::smallint[], $2::text[], $3::bigint[], $4::text[]) AS u(kind, value, ts, id)
  WHERE x.kind = u.kind AND x.value = u.value AND x.ts = u.ts AND x.id = u.id
)
DELETE FROM audits WHERE id = ANY($5::text[])`;

interface Row {
  id: string;
  /** bigint arrives as text from pg. */
  ts: string;
  doc: string;
}


/** One audit waiting for its group's statement. */
interface Pending {
  rows: AuditRows;
  /** A restore: an id already stored means "already there", not a clash. */
  ifNew: boolean;
  attempts: number;
  resolve: (result: string | boolean) => void;
  reject: (err: unknown) => void;
}

export interface PostgresAuditLogOptions {
  database: PostgresDatabase;
  /** The clock of new ids (the time an audit was stored, as OpenHIM's ObjectIds); tests pass their own. */
  now?: () => number;
  /** Most rows one statement reads for a filter SQL cannot check; default SCAN_WINDOW (tests use a small one). */
  scanWindowRows?: number;
}

/** Creates the PostgreSQL audit log; nothing connects until `open()`. */
export function createPostgresAuditLog(options: PostgresAuditLogOptions): AuditLog {
  return new PostgresAuditLog(options.database, options.now ?? Date.now, options.scanWindowRows ?? SCAN_WINDOW);
}

class PostgresAuditLog implements AuditLog {
  #pool: Pool | null = null;
  #opening: Promise<void> | null = null;
  #queue: Pending[] = [];
  #scheduled = false;
  /** The group being written, if any: the next waits for it, so groups reach the server in order. */
  #writing: Promise<void> | null = null;
  /** `kind code` of the codes known to be stored, so an audit sends a code only for its first use here. */
  #knownCodes = new Set<string>();

  constructor(
    private readonly database: PostgresDatabase,
    private readonly now: () => number,
    private readonly scanWindow: number,
  ) {}

  open(): Promise<void> {
    this.#opening ??= this.#connect().catch((err: unknown) => {
      this.#opening = null;
      throw err;
    });
    return this.#opening;
  }

  /** Writes what is queued, then gives the pool back. Safe to call twice. */
  async close(): Promise<void> {
    const opening = this.#opening;
    if (opening === null) return;
    await opening.catch(() => undefined);
    while (this.#writing !== null || this.#queue.length > 0) {
      if (this.#writing === null) this.#startGroup();
      await this.#writing;
    }
    const wasOpen = this.#pool !== null;
    this.#pool = null;
    this.#opening = null;
    if (wasOpen) await this.database.release();
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
    return this.#enqueue(rows, false).then((id) => {
      record._id = id as string;
      return record;
    });
  }

  addEncoded(encoded: EncodedAudit): Promise<string> {
    const columns = encoded?.columns as Partial<EncodedAudit['columns']> | undefined;
    if (typeof columns?.ts !== 'number' || !Number.isFinite(columns.ts) || typeof columns.doc !== 'string' || !Array.isArray(encoded.terms) || !Array.isArray(encoded.codes)) {
      return Promise.reject(new StoreError(`${COLLECTION}: an encoded audit needs its columns (a finite ts and the doc), terms and codes`));
    }
    const rows: AuditRows = { columns: { id: newObjectId(new Date(this.now())), ...encoded.columns }, terms: encoded.terms, codes: encoded.codes };
    return this.#enqueue(rows, false) as Promise<string>;
  }

  restore(audit: AuditRecord): Promise<boolean> {
    let rows: AuditRows;
    try {
      if (typeof audit._id !== 'string' || audit._id === '') throw new StoreError(`${COLLECTION}: an audit to restore needs its _id`);
      rows = checkedAuditRows(audit);
    } catch (err) {
      return Promise.reject(toStoreError('restore', err));
    }
    return this.#enqueue(rows, true) as Promise<boolean>;
  }

  async get(id: string): Promise<AuditRecord | null> {
    const pool = this.#ready();
    if (typeof id !== 'string' || id.includes('\u0000')) return null;
    const rows = await query<Row>(pool, 'get', 'SELECT id, ts, doc FROM audits WHERE id = $1', [id]);
    const row = rows[0];
    return row === undefined ? null : decodeRow(row);
  }

  async page(filter: AuditFilter, options: AuditPageOptions): Promise<AuditRecord[]> {
    const pool = this.#ready();
    const { skip, limit } = auditPageBounds(options);
    const plan = planOf('page', filter);
    if (holdsNul(plan)) return [];
    if (plan.check === null) {
      const statement = auditSelect(plan, { limit, offset: skip });
      return (await query<Row>(pool, 'page', statement.text, statement.values)).map(decodeRow);
    }
    return takePage(this.#matching(plan, Math.min(this.scanWindow, 250), this.scanWindow), skip, limit);
  }

  async *stream(filter: AuditFilter): AsyncIterable<AuditRecord> {
    this.#ready();
    const plan = planOf('stream', filter);
    if (holdsNul(plan)) return;
    const size = plan.check === null ? STREAM_BATCH : this.scanWindow;
    yield* this.#matching(plan, Math.min(size, STREAM_BATCH), size);
  }

  async codesSeen(): Promise<AuditCodesSeen> {
    const rows = await query<StoredCodeRow>(this.#ready(), 'codesSeen', 'SELECT kind, code, code_system_name, display_name FROM audit_codes ORDER BY seq');
    return codesSeenOf(rows);
  }

  async dropBefore(cutoff: Date, limit: number): Promise<number> {
    if (!(cutoff instanceof Date) || Number.isNaN(cutoff.getTime())) throw new StoreError(`${COLLECTION}: dropBefore needs a date`);
    if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreError(`${COLLECTION}: dropBefore needs a limit of 1 or more, not ${String(limit)}`);
    const pool = this.#ready();
    const doomed = await query<Row>(pool, 'dropBefore', 'SELECT id, ts, doc FROM audits WHERE ts < $1 ORDER BY ts, id LIMIT $2', [cutoff.getTime(), limit]);
    if (doomed.length === 0) return 0;
    // Terms carry no index by id or time (it would cost a b-tree write per term on every audit stored), so each
    // audit's terms are worked out again from its document, as auditRows wrote them, and deleted by their key.
    const kinds: number[] = [];
    const values: string[] = [];
    const times: number[] = [];
    const ids: string[] = [];
    for (const row of doomed) {
      const record = decodeRow(row);
      for (const term of auditRows(record).terms) {
        kinds.push(term.kind);
        values.push(term.value);
        times.push(Number(row.ts));
        ids.push(row.id);
      }
    }
    // One statement: the terms and their audits go together or not at all.
    const result = await run(pool, 'dropBefore', DROP_GROUP, [kinds, values, times, ids, doomed.map((row) => row.id)]);
    return result.rowCount ?? 0;
  }

  async #connect(): Promise<void> {
    const pool = await this.database.acquire();
    try {
      const rows = await query<StoredCodeRow>(pool, 'open', 'SELECT kind, code FROM audit_codes');
      this.#knownCodes = new Set(rows.map((row) => `${row.kind} ${row.code}`));
    } catch (err) {
      await this.database.release();
      throw err;
    }
    this.#pool = pool;
  }

  #ready(): Pool {
    if (this.#pool === null) throw new StoreError(`${COLLECTION}: the audit log is not open`);
    return this.#pool;
  }

  #enqueue(rows: AuditRows, ifNew: boolean): Promise<string | boolean> {
    if (this.#pool === null) return Promise.reject(new StoreError(`${COLLECTION}: the audit log is not open`));
    return new Promise((resolve, reject) => {
      this.#queue.push({ rows, ifNew, attempts: 1, resolve, reject });
      if (this.#scheduled || this.#writing !== null) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        if (this.#writing === null) this.#startGroup();
      });
    });
  }

  /** Writes the next group; when it is done, starts the one that gathered meanwhile. */
  #startGroup(): void {
    const group = this.#queue.splice(0, MAX_GROUP);
    if (group.length === 0) return;
    this.#writing = this.#writeGroup(group).finally(() => {
      this.#writing = null;
      if (this.#queue.length > 0) this.#startGroup();
    });
  }

  async #writeGroup(group: Pending[]): Promise<void> {
    const pool = this.#pool;
    if (pool === null) {
      for (const op of group) op.reject(new StoreError(`${COLLECTION}: the audit log is not open`));
      return;
    }
    try {
      this.#settle(group, await this.#insert(pool, group));
      return;
    } catch (err) {
      if (group.length === 1) {
        group[0]?.reject(toStoreError('add', err));
        return;
      }
    }
    // Something in the group was refused; alone, each audit stands or falls on its own.
    for (const op of group) {
      try {
        this.#settle([op], await this.#insert(pool, [op]));
      } catch (err) {
        op.reject(toStoreError(op.ifNew ? 'restore' : 'add', err));
      }
    }
  }

  /**
   * Inserts a group in one statement; resolves with the audits it stored. An audit whose id is already stored, or
   * taken by an earlier audit of the group, is not.
   */
  async #insert(pool: Pool, group: readonly Pending[]): Promise<Set<Pending>> {
    const columns: unknown[][] = [[], [], [], [], [], [], [], []];
    const terms: unknown[][] = [[], [], [], []];
    const codes: unknown[][] = [[], [], [], [], []];
    const sent = new Map<string, Pending>();
    const sending = new Set<string>();
    for (const op of group) {
      const c = op.rows.columns;
      if (sent.has(c.id)) continue;
      sent.set(c.id, op);
      [c.id, c.ts, c.event_id, c.event_type, c.outcome, c.action, c.source, c.doc].forEach((value, i) => columns[i]?.push(value));
      for (const term of op.rows.terms) [term.kind, term.value, c.ts, c.id].forEach((value, i) => terms[i]?.push(value));
      for (const code of op.rows.codes) {
        const key = `${code.kind} ${code.code}`;
        if (this.#knownCodes.has(key) || sending.has(key)) continue;
        sending.add(key);
        [c.id, code.kind, code.code, code.codeSystemName, code.displayName].forEach((value, i) => codes[i]?.push(value));
      }
    }
    const { rows } = await pool.query<{ id: string }>(INSERT_GROUP, [...columns, ...terms, ...codes]);
    const stored = new Set<Pending>();
    for (const { id } of rows) {
      const op = sent.get(id);
      if (op === undefined) continue;
      stored.add(op);
      // A code of an audit not stored (a restore already there) is not known to be stored: it is sent again later.
      for (const code of op.rows.codes) this.#knownCodes.add(`${code.kind} ${code.code}`);
    }
    return stored;
  }

  /** Settles each audit of a written group; an added audit whose id was taken goes round again under a new one. */
  #settle(group: readonly Pending[], stored: Set<Pending>): void {
    for (const op of group) {
      if (stored.has(op)) op.resolve(op.ifNew ? true : op.rows.columns.id);
      else if (op.ifNew) op.resolve(false);
      else if (op.attempts >= ID_ATTEMPTS) op.reject(new UniqueConstraintError(COLLECTION, '_id'));
      else {
        op.attempts++;
        op.rows.columns.id = newObjectId(new Date(this.now()));
        this.#queue.push(op);
      }
    }
  }

  /**
   * The records a plan matches, newest first, read `first` rows at a time at first, then doubling up to `max`, each
   * statement continuing after the last row read (keyset), with a turn of the event loop between statements.
   */
  async *#matching(plan: AuditPlan, first: number, max: number): AsyncGenerator<AuditRecord> {
    let after: AuditKey | null = null;
    let size = first;
    for (;;) {
      const statement = auditSelect(plan, { after, limit: size });
      const rows = await query<Row>(this.#ready(), 'read', statement.text, statement.values);
      for (const row of rows) {
        const record = decodeRow(row);
        if (plan.check === null || plan.check(record)) yield record;
      }
      const tail = rows.at(-1);
      if (tail === undefined || rows.length < size) return;
      after = { ts: Number(tail.ts), id: tail.id };
      size = Math.min(max, size * 2);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

async function query<T extends object>(pool: Pool, action: string, text: string, values: unknown[] = []): Promise<T[]> {
  return (await run<T>(pool, action, text, values)).rows;
}

async function run<T extends object>(pool: Pool, action: string, text: string, values: unknown[]): Promise<{ rows: T[]; rowCount: number | null }> {
  try {
    return await pool.query<T>(text, values);
  } catch (err) {
    throw toStoreError(action, err);
  }
}

/**
 * Whether a plan compares with text holding a NUL character. PostgreSQL text cannot hold one, so no stored audit
 * has such a value, and the statement itself would be refused: such a filter matches nothing, as in SQLite.
 */
function holdsNul(plan: AuditPlan): boolean {
  const { driver } = plan;
  const texts = [...plan.columns.map((c) => c.value), ...plan.terms.map((t) => t.value)];
  if (driver.by === 'term') texts.push(driver.value);
  if (driver.by === 'prefix') texts.push(driver.prefix);
  return texts.some((text) => text.includes('\u0000'));
}

function decodeRow(row: Row): AuditRecord {
  return decodeAudit(row.id, Number(row.ts), row.doc);
}

function planOf(action: string, filter: AuditFilter): AuditPlan {
  try {
    return auditPlan(filter);
  } catch (err) {
    throw toStoreError(action, err);
  }
}




function toStoreError(action: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new StoreError(`${COLLECTION}: ${action} failed: ${message}`, { cause: err });
}
