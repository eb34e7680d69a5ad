/**
 * Lookups on a collection's unique and indexed fields are served by their indexes on PostgreSQL (index-lookups.ts),
 * and return exactly what the jsonpath condition alone returns. Plans are read with EXPLAIN on 50,000 sessions after
 * ANALYZE, as the planner sees a real table, not timed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import type { Pool } from 'pg';
import { collectionSpecs } from '../../service/storage/collection-specs.js';
import { PostgresCollection } from '../../service/storage/postgres/collection.js';
import { Params, toSqlCondition } from '../../service/storage/postgres/filter.js';
import { PostgresDatabase } from '../../service/storage/postgres/index.js';
import type { SessionRecord } from '../../service/storage/records.js';
import type { Filter } from '../../service/storage/store.js';
import { createTestDatabase, newSchemaName, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const SESSIONS = 50_000;
const FIRST_EXPIRY = Date.UTC(2026, 0, 1);

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

describe('PostgreSQL lookups on indexed fields', () => {
  let db: TestDatabase;
  let database: PostgresDatabase;
  let pool: Pool;
  let sessions: PostgresCollection<SessionRecord>;

  beforeAll(async () => {
    db = await createTestDatabase();
    database = new PostgresDatabase({ settings: settingsFor(db.url), logger: pino({ level: 'silent' }), schema: newSchemaName() });
    pool = await database.acquire();
    sessions = new PostgresCollection<SessionRecord>(collectionSpecs.sessions, { pool: () => pool });
    // Documents shaped as the collection writes them (Dates as {"$date": ms}), written in one statement for speed.
    await pool.query(`INSERT INTO store_sessions (id, doc)
      SELECT 's' || i, jsonb_build_object('_id', 's' || i, 'tokenHash', md5(i::text), 'userId', 'u' || (i % 100),
        'address', '10.0.' || (i % 250) || '.1', 'createdAt', jsonb_build_object('$date', $1::bigint + i * 1000), 'expiresAt', jsonb_build_object('$date', $1::bigint + i * 1000))
      FROM generate_series(1, $2::int) AS i`, [FIRST_EXPIRY, SESSIONS]);
    await pool.query('ANALYZE store_sessions');
  });
  afterAll(async () => {
    await database.release();
    await db.drop();
  });

  async function planOf(filter: Filter): Promise<PlanNode[]> {
    const { text, values } = sessions.findStatement(filter);
    const { rows } = await pool.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (plan === undefined) throw new Error('EXPLAIN returned no plan');
    return nodesOf(plan);
  }

  function indexesUsed(nodes: PlanNode[]): string[] {
    return nodes.flatMap((n) => (n['Index Name'] === undefined ? [] : [n['Index Name']]));
  }

  it('finds a session by tokenHash through its unique index, not a sequential scan', async () => {
    const nodes = await planOf({ tokenHash: md5Of(31_337) });
    expect(nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(indexesUsed(nodes)).toContain('store_sessions_u_tokenhash');
    const found = await sessions.find({ tokenHash: md5Of(31_337) });
    expect(found.map((s) => s._id)).toEqual(['s31337']);
    expect(found[0]?.expiresAt).toEqual(new Date(FIRST_EXPIRY + 31_337_000));
  });

  it('serves $in on tokenHash and a Date range on expiresAt from their indexes', async () => {
    const hashes = [1, 2, 49_999].map(md5Of);
    const byHashes = await planOf({ tokenHash: { $in: hashes } });
    expect(byHashes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(indexesUsed(byHashes)).toContain('store_sessions_u_tokenhash');
    expect((await sessions.find({ tokenHash: { $in: hashes } })).map((s) => s._id)).toEqual(['s1', 's2', 's49999']);
    const soon = { expiresAt: { $lt: new Date(FIRST_EXPIRY + 5_500) } };
    const nodes = await planOf(soon);
    expect(nodes.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(indexesUsed(nodes)).toContain('store_sessions_i_expiresat');
    expect((await sessions.find(soon, { sort: { expiresAt: 1 } })).map((s) => s._id)).toEqual(['s1', 's2', 's3', 's4', 's5']);
  });

  it('still scans the table for the same Date range on a field with no index, so the plans above are the indexes\' doing', async () => {
    const nodes = await planOf({ createdAt: { $lt: new Date(FIRST_EXPIRY + 5_500) } });
    expect(nodes.map((n) => n['Node Type'])).toContain('Seq Scan');
  });

  it('returns exactly what the jsonpath condition alone returns, for arrays, numbers, booleans, null and Dates in an indexed field', async () => {
    const date = new Date(Date.UTC(2026, 5, 1));
    const odd: [string, unknown][] = [
      ['odd-array', ['u1', 'odd', 7]], ['odd-nested', [['odd']]], ['odd-number', 7], ['odd-float', 7.5], ['odd-true', true],
      ['odd-null', null], ['odd-date', { $date: date.getTime() }], ['odd-dates', [{ $date: date.getTime() + 1 }]],
      ['odd-object', { odd: 'odd' }], ['odd-missing', undefined], ['odd-quotes', 'a "quoted", {braced} \\ é'],
    ];
    for (const [id, userId] of odd) {
      await pool.query('INSERT INTO store_sessions (id, doc) VALUES ($1, $2)', [id, { _id: id, tokenHash: `h-${id}`, ...(userId === undefined ? {} : { userId }) }]);
    }
    const filters: Filter[] = [
      { userId: 'odd' }, { userId: 'u1' }, { userId: 7 }, { userId: true }, { userId: null }, { userId: date },
      { userId: { $in: ['odd', 7, null] } }, { userId: { $in: [date, new Date(date.getTime() + 1)] } },
      { userId: { $gt: 6 } }, { userId: { $lte: 7 } }, { userId: { $gte: date } }, { userId: { $lt: date } },
      { userId: { $gte: 'u98' } }, { userId: { $in: ['a "quoted", {braced} \\ é', 'odd'] } }, { userId: 'a "quoted", {braced} \\ é' }, { $or: [{ userId: 'odd' }, { tokenHash: md5Of(3) }] }, { userId: 'odd', tokenHash: 'h-odd-array' },
    ];
    const matched: number[] = [];
    for (const filter of filters) {
      const params = new Params();
      const where = toSqlCondition('sessions', filter, params);
      const { rows } = await pool.query<{ id: string }>(`SELECT id FROM store_sessions WHERE ${where} ORDER BY id`, params.values);
      const served = (await sessions.find(filter)).map((s) => s._id).sort();
      expect(served, JSON.stringify(filter)).toEqual(rows.map((r) => r.id).sort());
      matched.push(served.length);
    }
    // The comparison has teeth: the array, number, boolean, null and Date cases each match something.
    expect(matched.slice(0, 8).every((n) => n > 0)).toBe(true);
    expect(matched.slice(-4, -2)).toEqual([3, 1]);
    expect(await sessions.count({ userId: 'odd' })).toBe(2);
    expect((await sessions.find({ userId: { $in: [date, new Date(date.getTime() + 1)] } })).map((s) => s._id).sort()).toEqual(['odd-date', 'odd-dates']);
  });
});

function md5Of(i: number): string {
  return createHash('md5').update(String(i)).digest('hex');
}
