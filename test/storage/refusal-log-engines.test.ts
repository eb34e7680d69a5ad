/** The refusal log contract (issue 35) on both engines: SQLite (refusals.sqlite) and PostgreSQL. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { pino } from 'pino';
import { PostgresDatabase } from '../../service/storage/postgres/index.js';
import { PostgresRefusalLog } from '../../service/storage/postgres/refusal-log.js';
import { SqliteRefusalLog } from '../../service/storage/sqlite/refusal-log.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { describeRefusalLogContract } from './refusal-log-contract.js';

const silent = pino({ level: 'silent' });

describeRefusalLogContract('SQLite', async (location) => {
  const dir = location ?? (await tempDir('junction-refusals-'));
  return { log: new SqliteRefusalLog({ file: join(dir, 'refusals.sqlite') }), location: dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
});

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describeRefusalLogContract('PostgreSQL', async (location) => {
  database ??= createTestDatabase();
  const { url } = await database;
  const schema = location ?? newSchemaName();
  return {
    log: new PostgresRefusalLog(new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema })),
    location: schema,
    cleanup: async () => {
      await runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
});
