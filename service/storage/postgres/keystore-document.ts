/** The keystore document on PostgreSQL: one row (migration 7) that every instance reads and writes. */
import type { Pool } from 'pg';
import type { KeystoreDocument, KeystoreDocumentStore } from '../keystore-document.js';
import { StoreError } from '../store.js';
import type { PostgresDatabase } from './database.js';
import { wrapError } from './errors.js';

/** The keystore row over a shared database; `open` before use, `close` when done. */
export class PostgresKeystoreDocument implements KeystoreDocumentStore {
  #pool: Pool | null = null;

  constructor(private readonly database: PostgresDatabase) {}

  get where(): string {
    return `the PostgreSQL table ${this.database.schema}.keystore`;
  }

  /** Takes a share of the database's pool (migrating the schema on first use). */
  async open(): Promise<void> {
    this.#pool ??= await this.database.acquire();
  }

  /** Gives the share back. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#pool === null) return;
    this.#pool = null;
    await this.database.release();
  }

  async read(): Promise<KeystoreDocument | null> {
    const { rows } = await this.#query<{ version: string; document: string }>('read', 'SELECT version::text AS version, document FROM keystore WHERE id = 1');
    const row = rows[0];
    return row === undefined ? null : { text: row.document, version: row.version };
  }

  async version(): Promise<string | null> {
    const { rows } = await this.#query<{ version: string }>('version', 'SELECT version::text AS version FROM keystore WHERE id = 1');
    return rows[0]?.version ?? null;
  }

  async write(text: string, expected: string | null): Promise<string | null> {
    // Either statement changes nothing when another instance wrote first: the caller then reloads.
    const { rows } = expected === null
      ? await this.#query<{ version: string }>('write', 'INSERT INTO keystore (id, version, document) VALUES (1, 1, $1) ON CONFLICT (id) DO NOTHING RETURNING version::text AS version', [text])
      : await this.#query<{ version: string }>('write', 'UPDATE keystore SET document = $1, version = version + 1, updated_at = now() WHERE id = 1 AND version = $2::bigint RETURNING version::text AS version', [text, expected]);
    return rows[0]?.version ?? null;
  }

  async #query<R extends object>(action: string, sql: string, values: unknown[] = []): Promise<{ rows: R[] }> {
    if (this.#pool === null) throw new StoreError(`keystore: ${action} before open`);
    try {
      return await this.#pool.query<R>(sql, values);
    } catch (err) {
      throw wrapError('keystore', action, err);
    }
  }
}
