/**
 * Running the schema migrations at start. N instances starting at once all call this: a session advisory lock makes
 * them take turns, so the first migrates and the others find nothing left to do. A database migrated by a newer
 * Junction is refused before anything is written.
 */
import type { Pool, PoolClient } from 'pg';
import { SchemaTooNewError } from './errors.js';
import type { Migration } from './migrations.js';

/**
 * Creates `schema` if needed and brings it up to the newest of `migrations`; returns the versions applied (empty
 * when already current). `schema` must be a plain identifier (connection.ts checks it).
 */
export async function migrate(pool: Pool, schema: string, migrations: readonly Migration[]): Promise<number[]> {
  const known = migrations.at(-1)?.version ?? 0;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // One lock per schema, so stores kept in different schemas of one database do not wait on each other.
    const lock = `junction migrations ${schema}`;
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lock]);
    try {
      // Inside the lock: two sessions creating the same schema at once can clash even with IF NOT EXISTS.
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      return await applyPending(client, migrations, known);
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]);
    }
  } catch (err) {
    broken = err as Error;
    throw err;
  } finally {
    // A connection that failed mid-migration may still hold the lock or an open transaction: it is discarded.
    client.release(broken);
  }
}

async function applyPending(client: PoolClient, migrations: readonly Migration[], known: number): Promise<number[]> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  const current = rows[0]?.version ?? 0;
  if (current > known) throw new SchemaTooNewError(current, known);
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    await client.query('BEGIN');
    try {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
    applied.push(migration.version);
  }
  return applied;
}
