/** The suite's own PostgreSQL server: reachable, and each test file's database is its own. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

describe('the test PostgreSQL server', () => {
  let first: TestDatabase;
  let second: TestDatabase;
  beforeAll(async () => {
    first = await createTestDatabase();
    second = await createTestDatabase();
  });
  afterAll(async () => {
    await first.drop();
    await second.drop();
  });

  it('answers on 127.0.0.1 with a PostgreSQL 18 server, and two databases do not share tables', async () => {
    const a = new pg.Client({ connectionString: first.url });
    const b = new pg.Client({ connectionString: second.url });
    await a.connect();
    await b.connect();
    try {
      const { rows } = await a.query<{ server_version: string }>('SHOW server_version');
      expect(rows[0]?.server_version).toMatch(/^18\./);
      expect(new URL(first.url).hostname).toBe('127.0.0.1');
      await a.query('CREATE TABLE only_here (x int)');
      const found = await b.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_here'");
      expect(found.rows[0]).toEqual({ n: 0 });
    } finally {
      await a.end();
      await b.end();
    }
  });
});
