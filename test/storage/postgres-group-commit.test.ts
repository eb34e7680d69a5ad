/**
 * The PostgreSQL transaction log's group commit (issue 38, transaction-log-batches.ts), on the suite's real
 * PostgreSQL: concurrent writers share commits (counted by the database itself: a row's `xmin` is the transaction
 * that last wrote it), each caller is answered only once its row is visible to another connection, a batch whose
 * connection is cut rejects every caller in it and loses nothing acknowledged, one bad row fails only its own
 * caller, and two instances' metric counts add up exactly.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { pino } from 'pino';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import type { PostgresTransactionLog } from '../../service/storage/postgres/index.js';
import { StoreError, UniqueConstraintError } from '../../service/storage/store.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';
import { tx } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });
let database: Promise<TestDatabase> | undefined;
const opened: PostgresTransactionLog[] = [];
const clients: pg.Client[] = [];
const schemas: string[] = [];
const onCleanup: (() => Promise<void>)[] = [];

async function url(): Promise<string> {
  database ??= createTestDatabase();
  return (await database).url;
}

async function logOf(schema: string, instanceId: string, commitWindowMs = 1): Promise<PostgresTransactionLog> {
  const log = createPostgresTransactionLog({ database: new PostgresDatabase({ settings: settingsFor(await url()), logger: silent, schema }), logger: silent, instanceId, commitWindowMs });
  opened.push(log);
  await log.open();
  return log;
}

/** A connection of its own on `schema`, as another process reading the database has. */
async function clientOf(schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: await url(), options: `-c search_path=${schema}` });
  client.on('error', () => undefined);
  clients.push(client);
  await client.connect();
  return client;
}

function newSchema(): string {
  const schema = newSchemaName();
  schemas.push(schema);
  return schema;
}

afterEach(async () => {
  for (const cleanup of onCleanup.splice(0)) await cleanup();
  for (const client of clients.splice(0)) await client.end().catch(() => undefined);
  for (const log of opened.splice(0)) await log.close();
  for (const schema of schemas.splice(0)) await runSql(await url(), `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});
afterAll(async () => {
  await (await database)?.drop();
});

const BASE = Date.parse('2024-05-01T10:00:00Z');

function processing(i: number): TransactionRecord {
  return tx(new Date(BASE + i * 10).toISOString(), { status: 'Processing', response: undefined });
}

function completion(doc: TransactionRecord, ms: number) {
  return { set: { status: 'Successful' as const, response: { status: 200, headers: {}, timestamp: new Date(doc.request.timestamp.getTime() + ms) } } };
}

describe('PostgreSQL transaction log group commit', () => {
  it('lands many concurrent inserts and completions in far fewer commits, each caller answered only once its row is visible elsewhere', async () => {
    const schema = newSchema();
    const log = await logOf(schema, 'instance-a');
    // A pool of its own, so that the reads after each answer queue rather than overlap on one connection.
    const other = new pg.Pool({ connectionString: await url(), options: `-c search_path=${schema}`, max: 2 });
    onCleanup.push(() => other.end());
    const seenAfterInsert: (string | undefined)[] = [];
    const seenAfterUpdate: (string | undefined)[] = [];
    const status = async (id: string) => (await other.query<{ status: string }>('SELECT status FROM transactions WHERE id = $1', [id])).rows[0]?.status;
    const n = 200;
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const doc = await log.insert(processing(i));
        seenAfterInsert[i] = await status(doc._id);
        const done = await log.update(doc._id, completion(doc, 3));
        expect(done?.status).toBe('Successful');
        seenAfterUpdate[i] = await status(doc._id);
      }),
    );
    // Read from another connection right after each answer: the commit had happened before it.
    expect(seenAfterInsert.filter((s) => s === undefined)).toEqual([]);
    expect(seenAfterUpdate.every((s) => s === 'Successful')).toBe(true);
    // Each row's xmin is the database transaction that last wrote it: the completions' commits, counted by PostgreSQL.
    const { rows } = await other.query<{ rows: string; commits: string }>('SELECT count(*) AS rows, count(DISTINCT xmin::text) AS commits FROM transactions');
    expect(Number(rows[0]?.rows)).toBe(n);
    expect(Number(rows[0]?.commits)).toBeLessThanOrEqual(n / 4);
    const stats = log.batchStats;
    expect(stats.writes).toBe(2 * n);
    expect(stats.batches).toBeLessThanOrEqual(n / 2);
    // Each completion wrote its finished entry and counts in its batch: every one numbered once, counted once.
    expect((await log.finishedAfter(0, 1000)).map((f) => f.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    const [minute] = await log.metrics({ period: 'hour', from: new Date(BASE), to: new Date(BASE + 3_600_000) });
    expect([minute?.requests, minute?.successful, minute?.totalResponseTime]).toEqual([n, n, 3 * n]);
  });

  it('rejects every caller of a batch whose connection is cut, leaving nothing of it written and losing nothing acknowledged', async () => {
    const schema = newSchema();
    const log = await logOf(schema, 'instance-a');
    const docs = await Promise.all(Array.from({ length: 8 }, (_, i) => log.insert(processing(i))));
    const [held, ...rest] = docs as [TransactionRecord, ...TransactionRecord[]];
    // Another connection holds the first row, so the next batch waits in its SELECT ... FOR UPDATE, mid-batch.
    const holder = await clientOf(schema);
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM transactions WHERE id = $1 FOR UPDATE', [held._id]);
    const batch = docs.map((doc) => log.update(doc._id, completion(doc, 5)).then(() => 'stored', (err: unknown) => err));
    const admin = await clientOf(schema);
    const pid = await until('the batch waiting on the held row', async () => {
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'SELECT id, doc FROM transactions%'",
      );
      return rows[0]?.pid;
    });
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const outcomes = await Promise.all(batch);
    await holder.query('ROLLBACK');
    expect(outcomes.every((outcome) => outcome instanceof StoreError)).toBe(true);
    expect(log.batchStats.batches).toBeLessThanOrEqual(3);
    // Nothing of the failed batch was written, everything acknowledged is there, and the log writes again.
    const { rows } = await admin.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM transactions GROUP BY status');
    expect(rows.map((row) => [row.status, Number(row.n)])).toEqual([['Processing', 8]]);
    expect(await log.finishedAfter(0, 10)).toEqual([]);
    const again = await Promise.all(rest.map((doc) => log.update(doc._id, completion(doc, 5))));
    expect(again.every((record) => record?.status === 'Successful')).toBe(true);
  });

  it('fails only the bad row of a batch: a duplicate id is refused alone, its neighbours stored', async () => {
    const schema = newSchema();
    const log = await logOf(schema, 'instance-a', 5);
    const first = await log.insert(processing(0));
    const before = log.batchStats.batches;
    const outcomes = await Promise.all(
      [processing(1), { ...first }, processing(2), processing(3)].map((doc) => log.insert(doc).then(() => 'stored', (err: unknown) => err)),
    );
    expect(outcomes[0]).toBe('stored');
    expect(outcomes[1]).toBeInstanceOf(UniqueConstraintError);
    expect(outcomes.slice(2)).toEqual(['stored', 'stored']);
    // They went as one batch (then one by one after the refusal), and the table holds each row once.
    expect(log.batchStats.batches - before).toBe(1);
    expect(await log.count({})).toBe(4);
  });

  it('adds up the metric counts of two instances writing the same buckets at once, exactly', async () => {
    const schema = newSchema();
    const a = await logOf(schema, 'instance-a');
    const b = await logOf(schema, 'instance-b', 0);
    const n = 120;
    await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const log = i % 2 === 0 ? a : b;
        const doc = await log.insert(processing(i));
        await log.update(doc._id, completion(doc, i % 7));
      }),
    );
    const expected = Array.from({ length: n }, (_, i) => i % 7).reduce((sum, ms) => sum + ms, 0);
    for (const log of [a, b]) {
      const minutes = await log.metrics({ period: 'minute', from: new Date(BASE), to: new Date(BASE + 60_000) });
      expect(minutes.map((m) => [m.requests, m.successful, m.totalResponseTime, m.minResponseTime, m.maxResponseTime])).toEqual([[n, n, expected, 0, 6]]);
    }
    expect(a.batchStats.batches + b.batchStats.batches).toBeLessThan(2 * n);
  });
});

describe('PostgreSQL lookups asked for together', () => {
  it('answers each of many concurrent gets, a missing id with null, and the same id twice with two copies', async () => {
    const schema = newSchema();
    const log = await logOf(schema, 'instance-a');
    const docs = await Promise.all(Array.from({ length: 30 }, (_, i) => log.insert(processing(i))));
    const missing = processing(99)._id;
    const ids = [...docs.map((doc) => doc._id), missing, docs[0]!._id];
    const got = await Promise.all(ids.map((id) => log.get(id)));
    expect(got.slice(0, 30).map((record) => record?._id)).toEqual(docs.map((doc) => doc._id));
    expect(got[30]).toBeNull();
    expect(got[31]).toEqual(got[0]);
    expect(got[31]).not.toBe(got[0]);
    expect(got[0]?.request.timestamp).toBeInstanceOf(Date);
  });
});
