/** The PostgreSQL configuration store: the storage contract against a real server, each store in its own schema. */
import { afterAll } from 'vitest';
import { pino } from 'pino';
import { createPostgresStore, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { describeStoreContract } from './contract.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });
let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describeStoreContract('PostgreSQL', async (location) => {
  database ??= createTestDatabase();
  const { url } = await database;
  const schema = location ?? newSchemaName();
  const store = createPostgresStore(new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }));
  return {
    store,
    location: schema,
    cleanup: async () => {
      await store.close();
      await runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
});
