/** The PostgreSQL engine's schema migrations: once across instances starting together, and never onto a newer schema. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { collectionSpecs } from '../../service/storage/collection-specs.js';
import { PostgresDatabase, SchemaTooNewError } from '../../service/storage/postgres/index.js';
import { migrations } from '../../service/storage/postgres/migrations.js';
import { StoreOpenError } from '../../service/storage/store.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });

describe('PostgreSQL schema migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  function database(schema: string): PostgresDatabase {
    return new PostgresDatabase({ settings: settingsFor(db.url), logger: silent, schema });
  }

  it('runs each migration once when several instances open the same empty database at the same moment', async () => {
    const schema = newSchemaName();
    const instances = Array.from({ length: 5 }, () => database(schema));
    await Promise.all(instances.map((d) => d.acquire()));
    try {
      const { rows } = await runSql(db.url, `SELECT version, name FROM ${schema}.schema_migrations ORDER BY version`);
      expect(rows).toEqual(migrations.map(({ version, name }) => ({ version, name })));
    } finally {
      await Promise.all(instances.map((d) => d.release()));
    }
    // A later start finds nothing to do and leaves the record as it was.
    const again = database(schema);
    await again.acquire();
    await again.release();
    const { rows } = await runSql(db.url, `SELECT count(*)::int AS n FROM ${schema}.schema_migrations`);
    expect(rows[0]).toEqual({ n: migrations.length });
  });

  it('refuses a database migrated by a newer Junction, naming both versions, and writes nothing', async () => {
    const schema = newSchemaName();
    const first = database(schema);
    await first.acquire();
    await first.release();
    const known = migrations.at(-1)?.version ?? 0;
    const newer = known + 1;
    await runSql(db.url, `INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, 'from the future')`, [newer]);
    const err = await database(schema).acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    expect((err as Error).cause).toBeInstanceOf(SchemaTooNewError);
    expect((err as Error).message).toContain(`schema version ${newer}, but this Junction knows versions up to ${known} only`);
    const { rows } = await runSql(db.url, `SELECT count(*)::int AS n FROM ${schema}.schema_migrations`);
    expect(rows[0]).toEqual({ n: migrations.length + 1 });
  });

  it('names the server it could not reach', async () => {
    const unreachable = new PostgresDatabase({ settings: { ...settingsFor(db.url), url: 'postgres://junction@127.0.0.1:1/junction' }, logger: silent });
    await expect(unreachable.acquire()).rejects.toThrow(/Cannot open the PostgreSQL database 127\.0\.0\.1:1\/junction: .*ECONNREFUSED/);
  });

  it('numbers migrations 1, 2, 3, ... with no gaps', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });

  it('indexes every unique and indexed field that collection-specs.ts names, unique ones uniquely', async () => {
    const schema = newSchemaName();
    const one = database(schema);
    await one.acquire();
    await one.release();
    const { rows } = await runSql(db.url, 'SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = $1', [schema]);
    const defs = rows as { tablename: string; indexdef: string }[];
    for (const spec of Object.values(collectionSpecs)) {
      const table = `store_${spec.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
      const on = defs.filter((d) => d.tablename === table).map((d) => d.indexdef);
      expect(on.some((d) => d.includes('gin (doc jsonb_path_ops)')), `${table} has a GIN index`).toBe(true);
      for (const [field, unique] of [...spec.unique.map((f) => [f, true] as const), ...spec.indexed.map((f) => [f, false] as const)]) {
        const expression = `(doc #> '{${field.split('.').join(',')}}'::text[])`;
        const found = on.filter((d) => d.includes(`USING btree ((${expression}))`) && d.startsWith(unique ? 'CREATE UNIQUE INDEX' : 'CREATE INDEX'));
        expect(found, `${spec.name}.${field}`).toHaveLength(1);
        // The partial index that lets index-served lookups reach documents whose field is an array (dotted fields have none).
        const arrays = on.filter((d) => d.endsWith(`WHERE (jsonb_typeof(${expression}) = 'array'::text)`));
        expect(arrays, `${spec.name}.${field} arrays`).toHaveLength(field.includes('.') ? 0 : 1);
      }
    }
  });
});
