/**
 * The audit outbox on PostgreSQL, one queue shared by every instance. Each instance's sender claims the messages it
 * is about to send (`FOR UPDATE SKIP LOCKED`, so two senders claiming at once never take the same rows) for a lease,
 * renewed as it sends; it removes only what it claimed. The claims of an instance that died lapse when their lease
 * does, and another instance sends those messages. A message goes twice only if one send outlasts the lease, so the
 * lease must exceed the forwarder's connect and write timeouts together (30 s against 10 s + 10 s by default).
 *
 * Time is the database's clock, so the instances' clocks need not agree; tests pass their own.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { AuditOutbox, QueuedAuditMessage } from '../audit-outbox.js';
import { StoreError } from '../store.js';
import type { PostgresDatabase } from './database.js';
import { Params } from './filter.js';

/** Epoch milliseconds on the database's clock. */
const DATABASE_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
/** Serialises pushes, so that the bound counts every message queued before this one. */
const PUSH_LOCK = 'junction audit outbox push';

export interface PostgresAuditOutboxOptions {
  database: PostgresDatabase;
  /** This instance's name on its claims; a new random one by default. */
  instance?: string;
  /** How long a claim holds without being renewed; default 30 s. */
  leaseMs?: number;
  /** How often an idle sender looks for messages other instances queued; default 5 s. */
  recheckMs?: number;
  /** Epoch ms; the database's clock by default. */
  now?: () => number;
}

/** The shared audit outbox; nothing connects until `open()`. */
export class PostgresAuditOutbox implements AuditOutbox {
  readonly recheckMs: number;
  readonly #database: PostgresDatabase;
  readonly #instance: string;
  readonly #leaseMs: number;
  readonly #now: (() => number) | undefined;
  #pool: Pool | null = null;
  #size = 0;

  constructor(options: PostgresAuditOutboxOptions) {
    this.#database = options.database;
    this.#instance = options.instance ?? randomUUID();
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.recheckMs = options.recheckMs ?? 5000;
    this.#now = options.now;
  }

  async open(): Promise<void> {
    if (this.#pool !== null) return;
    const pool = await this.#database.acquire();
    try {
      this.#size = await this.#count(pool);
    } catch (err) {
      await this.#database.release();
      throw failure('open', err);
    }
    this.#pool = pool;
  }

  async push(message: string, maxQueued: number): Promise<number> {
    if (typeof message !== 'string') throw new StoreError('auditOutbox: a queued message must be text');
    if (!Number.isSafeInteger(maxQueued) || maxQueued < 1) throw new StoreError(`auditOutbox: the queue bound must be 1 or more, not ${String(maxQueued)}`);
    const client = await this.#ready().connect().catch((err: unknown) => {
      throw failure('push', err);
    });
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${PUSH_LOCK} ${this.#database.schema}`]);
      // Under the lock, this statement's snapshot holds every message pushed before; the insert and the drop commit
      // together, so the bound holds even across a crash between them.
      const { rows } = await client.query<{ dropped: number; queued: number }>(
        `WITH added AS (INSERT INTO audit_outbox (message) VALUES ($1) RETURNING seq),
        dropped AS (DELETE FROM audit_outbox WHERE seq IN (
          SELECT seq FROM audit_outbox ORDER BY seq LIMIT greatest(0, (SELECT count(*) FROM audit_outbox) + 1 - $2)) RETURNING seq)
        SELECT (SELECT count(*) FROM dropped)::int AS dropped, ((SELECT count(*) FROM audit_outbox) + 1 - (SELECT count(*) FROM dropped))::int AS queued`,
        [message, maxQueued],
      );
      await client.query('COMMIT');
      const result = rows[0] ?? { dropped: 0, queued: this.#size + 1 };
      this.#size = result.queued;
      return result.dropped;
    } catch (err) {
      broken = err as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw failure('push', err);
    } finally {
      // A connection that failed mid-transaction is discarded rather than handed to the next user.
      client.release(broken);
    }
  }

  async peek(limit: number): Promise<QueuedAuditMessage[]> {
    const pool = this.#ready();
    const p = new Params();
    const me = p.add(this.#instance);
    const now = this.#clock(p);
    const until = `${now} + ${p.add(this.#leaseMs)}`;
    const text = `UPDATE audit_outbox SET claimed_by = ${me}, claimed_until = ${until}
      WHERE seq IN (SELECT seq FROM audit_outbox WHERE claimed_by IS NULL OR claimed_by = ${me} OR claimed_until < ${now}
        ORDER BY seq LIMIT ${p.add(limit)} FOR UPDATE SKIP LOCKED)
      RETURNING seq, message`;
    try {
      const { rows } = await pool.query<{ seq: string; message: string }>(text, p.values);
      if (rows.length === 0) this.#size = await this.#count(pool);
      return rows.map((row) => ({ seq: Number(row.seq), message: row.message })).sort((a, b) => a.seq - b.seq);
    } catch (err) {
      throw failure('peek', err);
    }
  }

  async removeThrough(seq: number): Promise<void> {
    const pool = this.#ready();
    const p = new Params();
    const me = p.add(this.#instance);
    const through = p.add(seq);
    // Sending one message renews the claim on the rest of the batch, so the lease need only outlast one send.
    const text = `WITH gone AS (DELETE FROM audit_outbox WHERE claimed_by = ${me} AND seq <= ${through} RETURNING seq),
      renewed AS (UPDATE audit_outbox SET claimed_until = ${this.#clock(p)} + ${p.add(this.#leaseMs)} WHERE claimed_by = ${me} AND seq > ${through})
      SELECT ((SELECT count(*) FROM audit_outbox) - (SELECT count(*) FROM gone))::int AS queued`;
    try {
      const { rows } = await pool.query<{ queued: number }>(text, p.values);
      this.#size = rows[0]?.queued ?? this.#size;
    } catch (err) {
      throw failure('removeThrough', err);
    }
  }

  size(): number {
    return this.#size;
  }

  /** Gives this instance's claims back, so another sends them at once rather than after the lease, and closes. */
  async close(): Promise<void> {
    const pool = this.#pool;
    if (pool === null) return;
    this.#pool = null;
    try {
      await pool.query('UPDATE audit_outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = $1', [this.#instance]);
    } catch {
      // Unreachable now: the claims lapse with their lease instead.
    } finally {
      await this.#database.release();
    }
  }

  #clock(p: Params): string {
    return this.#now === undefined ? DATABASE_NOW : `${p.add(this.#now())}::bigint`;
  }

  async #count(pool: Pool): Promise<number> {
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_outbox');
    return rows[0]?.n ?? 0;
  }

  #ready(): Pool {
    if (this.#pool === null) throw new StoreError('the audit outbox is not open');
    return this.#pool;
  }
}

function failure(action: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  return new StoreError(`auditOutbox: ${action} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}
