/** The body store contract, run against every engine: the embedded one (files, with and without SQLite for small bodies) and PostgreSQL. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { pino } from 'pino';
import { BodyFiles } from '../../service/storage/bodies/body-files.js';
import { createPostgresBodies, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { SqliteBodyBlobs } from '../../service/storage/sqlite/body-blobs.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { describeBodiesContract } from './bodies-contract.js';

const silent = pino({ level: 'silent' });

describeBodiesContract('embedded (files and SQLite)', async (location) => {
  const dir = location ?? (await tempDir('junction-bodies-'));
  const bodies = new BodyFiles(join(dir, 'bodies'), new SqliteBodyBlobs({ file: join(dir, 'bodies.sqlite'), logger: silent }));
  return {
    bodies,
    location: dir,
    cleanup: async () => {
      await bodies.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describeBodiesContract('embedded (files only)', async (location) => {
  const dir = location ?? (await tempDir('junction-bodies-'));
  const bodies = new BodyFiles(join(dir, 'bodies'));
  return {
    bodies,
    location: dir,
    cleanup: async () => {
      await bodies.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describeBodiesContract('PostgreSQL', async (location) => {
  database ??= createTestDatabase();
  const { url } = await database;
  const schema = location ?? newSchemaName();
  const bodies = createPostgresBodies(new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }));
  return {
    bodies,
    location: schema,
    cleanup: async () => {
      await bodies.close();
      await runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
});
