/** The audit log contract on PostgreSQL, and what only the PostgreSQL engine does: its groups, plans and sharing. */
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { auditPlan } from '../../service/storage/audit-plan.js';
import type { AuditFilter, AuditLog, AuditRecord } from '../../service/storage/audits.js';
import { StoreError } from '../../service/storage/store.js';
import { auditSelect } from '../../service/storage/postgres/audit-query.js';
import type { AuditKey } from '../../service/storage/postgres/audit-query.js';
import { PostgresDatabase } from '../../service/storage/postgres/index.js';
import { createPostgresAuditLog } from '../../service/storage/postgres/audit-log.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { audit, describeAuditLogContract } from './audit-log-contract.js';

const silent = pino({ level: 'silent' });
let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

async function databaseUrl(): Promise<string> {
  database ??= createTestDatabase();
  return (await database).url;
}

describeAuditLogContract('PostgreSQL', async (location) => {
  const url = await databaseUrl();
  const schema = location ?? newSchemaName();
  return {
    log: createPostgresAuditLog({ database: new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }) }),
    location: schema,
    cleanup: () => runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined),
  };
});

describe('PostgreSQL audit log', () => {
  const opened: { log: AuditLog; database: PostgresDatabase }[] = [];
  const schemas: string[] = [];

  afterEach(async () => {
    for (const { log } of opened.splice(0)) await log.close();
    const url = await databaseUrl();
    for (const schema of schemas.splice(0)) await runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  /** A log over `schema` with a pool of its own, as one Junction instance has. */
  async function instance(schema: string): Promise<{ log: AuditLog; database: PostgresDatabase }> {
    if (!schemas.includes(schema)) schemas.push(schema);
    const database = new PostgresDatabase({ settings: settingsFor(await databaseUrl()), logger: silent, schema });
    const log = createPostgresAuditLog({ database });
    await log.open();
    opened.push({ log, database });
    return { log, database };
  }

  it('writes the audits added in one turn as one statement, not one each', async () => {
    const { log, database } = await instance(newSchemaName());
    // The pool the log uses (the database hands every user the same one).
    const pool = await database.acquire();
    const statements = vi.spyOn(pool, 'query');
    try {
      const added = await Promise.all(Array.from({ length: 300 }, (_, i) => log.add(audit(i, { activeParticipant: [{ userID: `user-${i % 7}` }] }))));
      expect(statements).toHaveBeenCalledTimes(1);
      expect(new Set(added.map((a) => a._id)).size).toBe(300);
    } finally {
      statements.mockRestore();
      await database.release();
    }
    expect(await log.page({ userID: 'user-3' }, { skip: 0, limit: 500 })).toHaveLength(43);
  });

  it('stores one of two restores of the same id in one group, and says which', async () => {
    const { log } = await instance(newSchemaName());
    const record: AuditRecord = { ...audit(5, { activeParticipant: [{ userID: 'first' }] }), _id: 'bbbbbbbbbbbbbbbbbbbbbbbb' };
    const again: AuditRecord = { ...audit(6, { activeParticipant: [{ userID: 'second' }] }), _id: record._id };
    expect(await Promise.all([log.restore(record), log.restore(again)])).toEqual([true, false]);
    expect(await log.get(record._id)).toEqual(record);
    // The second one's terms were not written for the first's id.
    expect(await log.page({ userID: 'second' }, { skip: 0, limit: 10 })).toEqual([]);
  });

  it('refuses only the audit PostgreSQL cannot store when its group fails, and keeps a NUL inside the record', async () => {
    const { log } = await instance(newSchemaName());
    const nulInTerm = audit(2, { activeParticipant: [{ userID: 'bad\u0000user' }] });
    const nulInRecord = audit(3, { rawMessage: 'before\u0000after' });
    const results = await Promise.allSettled([log.add(audit(1)), log.add(nulInTerm), log.add(nulInRecord), log.add(audit(4))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreError);
    const kept = (results[2] as PromiseFulfilledResult<AuditRecord>).value;
    expect((await log.get(kept._id))?.rawMessage).toBe('before\u0000after');
    expect(await log.page({}, { skip: 0, limit: 10 })).toHaveLength(3);
    // Nothing of the refused audit is left behind, and a filter on a value PostgreSQL cannot hold matches nothing.
    const schema = schemas.at(-1) as string;
    const orphans = await runSql(await databaseUrl(), `SELECT count(*)::int AS n FROM ${schema}.audit_terms t WHERE NOT EXISTS (SELECT 1 FROM ${schema}.audits a WHERE a.id = t.id)`);
    expect(orphans.rows).toEqual([{ n: 0 }]);
    expect(await log.page({ userID: 'bad\u0000user' }, { skip: 0, limit: 10 })).toEqual([]);
    expect(await log.page({ participantObjectID: [{ prefix: '\u0000' }] }, { skip: 0, limit: 10 })).toEqual([]);
    expect(await log.get('abc\u0000')).toBeNull();
  });

  it('shares one log between instances: each sees the other\'s audits and codes, and a code is listed once', async () => {
    const schema = newSchemaName();
    const a = await instance(schema);
    const b = await instance(schema);
    const both = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).log.add(audit(i, { auditSourceIdentification: { auditSourceID: `source-${i % 3}` } }))));
    const expected = [...both].sort((x, y) => y.eventIdentification.eventDateTime.getTime() - x.eventIdentification.eventDateTime.getTime()).map((r) => r._id);
    expect((await a.log.page({}, { skip: 0, limit: 100 })).map((r) => r._id)).toEqual(expected);
    expect((await b.log.page({}, { skip: 0, limit: 100 })).map((r) => r._id)).toEqual(expected);
    const seen = await b.log.codesSeen();
    expect([...seen.auditSourceID].sort()).toEqual(['source-0', 'source-1', 'source-2']);
    expect(seen.eventID).toHaveLength(1);
    // Retention on one instance is seen by the other.
    expect(await a.log.dropBefore(both[10]?.eventIdentification.eventDateTime ?? new Date(), 100)).toBe(10);
    expect(await b.log.page({}, { skip: 0, limit: 100 })).toHaveLength(30);
  });

  // Filters matching many audits, where reading in order matters: for a handful the planner rightly prefers to sort.
  // (A prefix's candidates are sorted by design, and joined as the planner judges cheapest at the table's size.)
  it('reads each filtered page through an index in newest-first order, without sorting the table', async () => {
    const { log } = await instance(newSchemaName());
    const schema = schemas.at(-1) as string;
    for (let i = 0; i < 2000; i += 500) {
      await Promise.all(Array.from({ length: 500 }, (_, j) => log.add(audit(i + j, {
        activeParticipant: [{ userID: `user-${(i + j) % 2}` }],
        auditSourceIdentification: { auditSourceID: `source-${(i + j) % 20}` },
      }))));
    }
    const url = await databaseUrl();
    await runSql(url, `ANALYZE ${schema}.audits; ANALYZE ${schema}.audit_terms`);
    const plan = async (filter: AuditFilter, after?: AuditKey): Promise<string> => {
      const statement = auditSelect(auditPlan(filter), { limit: 20, after: after ?? null });
      const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.values);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      } finally {
        await client.end();
      }
    };
    const cases: [AuditFilter, RegExp][] = [
      [{}, /Index Scan Backward using audits_time/],
      [{ auditSourceID: 'source-3' }, /Index Scan Backward using audits_source/],
      [{ userID: 'user-1' }, /Index (Only )?Scan Backward using audit_terms_pkey/],
    ];
    for (const [filter, expected] of cases) {
      for (const after of [undefined, { ts: Date.parse('2024-06-01T00:20:00Z'), id: 'f' }]) {
        const steps = await plan(filter, after);
        expect(steps, JSON.stringify(filter)).toMatch(expected);
        expect(steps, JSON.stringify(filter)).not.toMatch(/Seq Scan|Sort/);
      }
    }
  });
});
