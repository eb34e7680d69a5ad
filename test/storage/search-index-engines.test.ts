/** The search index contract (issue 37) on each engine: SQLite (in transactions.sqlite) and PostgreSQL (each run in its own schema). */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { pino } from 'pino';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { describeSearchIndexContract } from './search-index-contract.js';

const silent = pino({ level: 'silent' });

describeSearchIndexContract('SQLite', async (location) => {
  const dir = location ?? (await tempDir('junction-search-'));
  // Windows of 3 rows, so the contract's pages cross many windows of the index-driven scan.
  const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, scanWindowRows: 3, integrityScanAfterMs: null });
  return { log, index: log.searchIndex, location: dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
});

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describeSearchIndexContract('PostgreSQL', async (location) => {
  database ??= createTestDatabase();
  const { url } = await database;
  const schema = location ?? newSchemaName();
  const log = createPostgresTransactionLog({ database: new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }), logger: silent, instanceId: 'contract' });
  return { log, index: log.searchIndex, location: schema, cleanup: () => runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined) };
});
