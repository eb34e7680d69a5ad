/** The transaction log contract, run against every engine: SQLite, and PostgreSQL with each log in its own schema. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { pino } from 'pino';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { describeTransactionLogContract } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });

describeTransactionLogContract('SQLite', async (location, options = {}) => {
  const dir = location ?? (await tempDir('junction-txcontract-'));
  return {
    log: createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, ...options }),
    location: dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describeTransactionLogContract('PostgreSQL', async (location, options = {}) => {
  database ??= createTestDatabase();
  const { url } = await database;
  const schema = location ?? newSchemaName();
  // A pool of its own for each log object, as a second process on the same data would have.
  const shared = new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema });
  return {
    // One instance id throughout: a reopen is the same instance restarting, whose recovery finishes its own rows.
    log: createPostgresTransactionLog({ database: shared, logger: silent, instanceId: 'contract', ...options }),
    location: schema,
    cleanup: () => runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined),
  };
});
