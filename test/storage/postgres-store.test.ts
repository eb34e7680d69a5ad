/** The PostgreSQL configuration store: the storage contract against a real server, each store in its own schema. */
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createPostgresStore, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { StoreError, StoreOpenError, UniqueConstraintError } from '../../service/storage/store.js';
import { describeStoreContract, newUser } from './contract.js';
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

describe('PostgreSQL store', () => {
  async function url(): Promise<string> {
    database ??= createTestDatabase();
    return (await database).url;
  }

  it('lets two instances on one database see each other\'s writes, and lets exactly one of them win a unique value', async () => {
    const schema = newSchemaName();
    const stores = [0, 1].map(async () => createPostgresStore(new PostgresDatabase({ settings: settingsFor(await url()), logger: silent, schema })));
    const [a, b] = await Promise.all(stores);
    if (a === undefined || b === undefined) throw new Error('two stores expected');
    await Promise.all([a.open(), b.open()]);
    try {
      const alice = await a.users.insert(newUser({ email: 'alice@example.org' }));
      expect(await b.users.findById(alice._id)).toEqual(alice);
      const attempts = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).users.insert(newUser({ email: 'race@example.org', firstname: `n${i}` })));
      const outcomes = await Promise.allSettled(attempts);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(UniqueConstraintError);
      expect(await a.users.count({ email: 'race@example.org' })).toBe(1);
    } finally {
      await a.close();
      await b.close();
      await runSql(await url(), `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('keeps serving one store while another store on the same database pool closes', async () => {
    const schema = newSchemaName();
    const shared = new PostgresDatabase({ settings: settingsFor(await url()), logger: silent, schema });
    const first = createPostgresStore(shared);
    const second = createPostgresStore(shared);
    await first.open();
    await second.open();
    await first.close();
    await expect(first.users.count({})).rejects.toBeInstanceOf(StoreError);
    await second.users.insert(newUser());
    expect(await second.users.count({})).toBe(1);
    await second.close();
    await runSql(await url(), `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  it('fails to open on an unreachable server with a StoreOpenError, shows it in health, and refuses operations', async () => {
    const settings = { ...settingsFor(await url()), url: 'postgres://junction@127.0.0.1:1/junction' };
    const store = createPostgresStore(new PostgresDatabase({ settings, logger: silent }));
    await expect(store.open()).rejects.toBeInstanceOf(StoreOpenError);
    const health = store.health();
    expect(health.state).toBe('failed');
    expect(health.problems[0]?.message).toMatch(/Cannot open the PostgreSQL database 127\.0\.0\.1:1\/junction/);
    await expect(store.users.find({})).rejects.toThrow('users: the store is failed to open');
    await store.close();
  });
});
