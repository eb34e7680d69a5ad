/** A database of its own for each test file on the suite's PostgreSQL server (started by test/global-setup.ts). */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { PostgresSettings } from '../../service/storage/postgres/index.js';

export interface TestDatabase {
  /** Connection URL of the new, empty database. */
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop: () => Promise<void>;
}

/** Creates an empty database with a random name, so test files running in parallel never share tables. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject('postgresUrl');
  const name = `junction_test_${randomBytes(6).toString('hex')}`;
  await asAdmin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asAdmin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function asAdmin(serverUrl: string, sql: string): Promise<void> {
  await runSql(serverUrl, sql);
}

/** `storage.postgres` settings that reach `url` with the defaults for everything else. */
export function settingsFor(url: string): PostgresSettings {
  return { url, host: 'localhost', port: 5432, database: 'junction', user: 'junction', poolSize: 4, tls: { enabled: false, caFile: '' } };
}

/** A fresh schema name, so that each store in one test file starts empty. */
export function newSchemaName(): string {
  return `s_${randomBytes(6).toString('hex')}`;
}

/** Runs one statement on `url` with a client of its own. */
export async function runSql(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}
