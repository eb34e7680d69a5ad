/**
 * What only the PostgreSQL transaction log does (the contract runs in transaction-log-engines.test.ts): several
 * instances sharing one log, the recovery a survivor runs for a dead instance, commit-ordered finished entries, and
 * index-served plans for the console's first pages.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { pino } from 'pino';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import type { PostgresTransactionLog } from '../../service/storage/postgres/index.js';
import { transactionPageStatement } from '../../service/storage/postgres/transaction-log.js';
import type { TransactionFilter, TransactionRecord } from '../../service/storage/transactions.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { tx } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });
let database: Promise<TestDatabase> | undefined;
const opened: PostgresTransactionLog[] = [];
const schemas: string[] = [];

async function url(): Promise<string> {
  database ??= createTestDatabase();
  return (await database).url;
}

/** An open log of `instanceId` on `schema`, with a connection pool of its own (as another process has). */
async function logOf(schema: string, instanceId: string): Promise<PostgresTransactionLog> {
  const log = createPostgresTransactionLog({ database: new PostgresDatabase({ settings: settingsFor(await url()), logger: silent, schema }), logger: silent, instanceId });
  opened.push(log);
  await log.open();
  return log;
}

function newSchema(): string {
  const schema = newSchemaName();
  schemas.push(schema);
  return schema;
}

afterEach(async () => {
  for (const log of opened.splice(0)) await log.close();
  for (const schema of schemas.splice(0)) await runSql(await url(), `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});
afterAll(async () => {
  await (await database)?.drop();
});

describe('PostgreSQL transaction log shared by instances', () => {
  it('finishes only its own instance\'s Processing rows at start, and a dead instance\'s when a survivor asks, once', async () => {
    const schema = newSchema();
    const a = await logOf(schema, 'instance-a');
    const b = await logOf(schema, 'instance-b');
    const ofA = await a.insert(tx('2024-03-01T10:00:00Z', { status: 'Processing', response: undefined }));
    const ofB = await b.insert(tx('2024-03-01T10:00:01Z', { status: 'Processing', response: undefined }));
    const answered = await b.insert(tx('2024-03-01T10:00:02Z', { status: 'Processing', response: undefined }));
    const at = new Date('2024-03-01T10:00:02Z');
    await b.update(answered._id, {
      set: { statusIfInterrupted: 'Successful', response: { status: 200, headers: {}, timestamp: new Date(at.getTime() + 7) }, routes: [{ name: 'secondary', request: { ...answered.request } }] },
    });

    // Instance a restarts: b's rows are b's, still in flight as far as a can tell.
    expect(await a.failInterrupted()).toBe(1);
    expect((await a.get(ofA._id))?.status).toBe('Failed');
    expect((await a.get(ofB._id))?.status).toBe('Processing');

    // b is found dead: two survivors recover it at once, and each row is finished by exactly one of them.
    const c = await logOf(schema, 'instance-c');
    const counts = await Promise.all([a.failInterruptedOf('instance-b'), c.failInterruptedOf('instance-b')]);
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(2);
    expect(await c.get(ofB._id)).toMatchObject({ status: 'Failed', error: { message: expect.stringMatching(/^Interrupted/) as unknown } });
    const recovered = await c.get(answered._id);
    expect(recovered).toMatchObject({ status: 'Successful', response: { status: 200 } });
    expect(recovered?.statusIfInterrupted).toBeUndefined();
    expect(recovered?.routes[0]?.error?.message).toMatch(/^Interrupted: Junction stopped before this route/);
    expect(await a.count({ status: ['Processing'] })).toBe(0);

    // One finished entry each, and the answered one counted once in its buckets (the unanswered ones have no response).
    expect((await a.finishedAfter(0, 10)).map((f) => f.id).sort()).toEqual([ofA._id, ofB._id, answered._id].sort());
    const minute = await a.metrics({ period: 'minute', from: new Date('2024-03-01T10:00:00Z'), to: new Date('2024-03-01T10:01:00Z') });
    expect(minute.map((bucket) => [bucket.requests, bucket.successful, bucket.totalResponseTime])).toEqual([[1, 1, 7]]);
    expect(await b.failInterrupted()).toBe(0);
    await expect(a.failInterruptedOf('')).rejects.toThrow(/instance id/);
  });

  it('keeps every exchange pushed concurrently to one transaction through two pools', async () => {
    const schema = newSchema();
    const a = await logOf(schema, 'instance-a');
    const b = await logOf(schema, 'instance-b');
    const doc = await a.insert(tx('2024-03-01T08:00:00Z', { status: 'Processing', response: undefined }));
    const exchange = (name: string) => ({ name, request: { ...doc.request } });
    const names = Array.from({ length: 40 }, (_, i) => `e${String(i).padStart(2, '0')}`);
    const results = await Promise.all(names.map((name, i) => (i % 2 === 0 ? a : b).update(doc._id, { push: { orchestrations: [exchange(name)], routes: [exchange(name)] } })));
    expect(results.every((result) => result !== null)).toBe(true);
    const stored = await b.get(doc._id);
    expect(stored?.orchestrations.map((o) => o.name).sort()).toEqual(names);
    expect(stored?.routes.map((r) => r.name).sort()).toEqual(names);
    // Each exchange's routes and orchestrations were appended in one write: the two lists are in the same order.
    expect(stored?.routes.map((r) => r.name)).toEqual(stored?.orchestrations.map((o) => o.name));
  });

  it('completes without waiting for another uncommitted completion of the same channel and minute, and numbers entries in commit order', async () => {
    const schema = newSchema();
    const log = await logOf(schema, 'instance-a');
    const late = await log.insert(tx('2024-03-01T09:00:00Z', { status: 'Processing', response: undefined }));
    const early = await log.insert(tx('2024-03-01T09:00:10Z', { status: 'Processing', response: undefined }));
    const responseAt = (doc: TransactionRecord) => ({ status: 200, headers: {}, timestamp: new Date(doc.request.timestamp.getTime() + 10) });
    // Another instance completes `late` and has written everything but not committed yet.
    const other = await logOf(schema, 'instance-b');
    const otherClient = new pg.Client({ connectionString: await url(), options: `-c search_path=${schema}` });
    await otherClient.connect();
    try {
      await otherClient.query('BEGIN');
      await otherClient.query("UPDATE transactions SET status = 'Successful' WHERE id = $1", [late._id]);
      await otherClient.query(
        "INSERT INTO finished_transactions (id, channel, status, code, at, ts, retry, auto_retry) VALUES ($1, 'ch-a', 'Successful', 200, 0, 0, NULL, false)",
        [late._id],
      );
      const minute = Date.parse('2024-03-01T09:00:00Z');
      await otherClient.query(
        "INSERT INTO transaction_metric_counts (channel, zone, minute, hour, day, status, ms) VALUES ('ch-a', 'UTC', $1, $1, $2, 'Successful', 10)",
        [minute, Date.parse('2024-03-01T00:00:00Z')],
      );
      // Same channel, same buckets: this completion does not wait for that commit (it would never return if it did).
      await log.update(early._id, { set: { status: 'Successful', response: responseAt(early) } });
      const first = await other.finishedAfter(0, 10);
      expect(first.map((f) => f.id)).toEqual([early._id]);
      expect((await log.metrics({ period: 'minute', from: new Date(minute), to: new Date(minute + 60_000) }))[0]?.requests).toBe(1);
      await otherClient.query('COMMIT');
      // Committed after `early` was read: numbered after it, so a reader resuming from there finds it.
      const next = await log.finishedAfter(first[0]!.seq, 10);
      expect(next.map((f) => f.id)).toEqual([late._id]);
      expect(await log.lastFinishedSeq()).toBe(next[0]!.seq);
      expect((await log.metrics({ period: 'minute', from: new Date(minute), to: new Date(minute + 60_000) }))[0]).toMatchObject({ requests: 2, successful: 2, totalResponseTime: 20 });
    } finally {
      await otherClient.end();
    }
  });

  it('numbers and folds what concurrent writers and readers on two pools commit, each entry once', async () => {
    const schema = newSchema();
    const a = await logOf(schema, 'instance-a');
    const b = await logOf(schema, 'instance-b');
    const seen: number[] = [];
    let cursor = 0;
    let reading = Promise.resolve();
    // One read at a time, each from where the last stopped, as the alert job reads.
    const read = (log: PostgresTransactionLog): Promise<void> => {
      reading = reading.then(async () => {
        const entries = await log.finishedAfter(cursor, 1000);
        for (const entry of entries) seen.push(entry.seq);
        cursor = entries.at(-1)?.seq ?? cursor;
      });
      return reading;
    };
    const writes = Array.from({ length: 200 }, async (_, i) => {
      const log = i % 2 === 0 ? a : b;
      const doc = await log.insert(tx(new Date(Date.parse('2024-03-01T10:00:00Z') + i * 1000).toISOString(), { status: 'Processing', response: undefined }));
      await log.update(doc._id, { set: { status: 'Successful', response: { status: 200, headers: {}, timestamp: new Date(doc.request.timestamp.getTime() + 1) } } });
      if (i % 20 === 0) await read(i % 40 === 0 ? a : b);
    });
    await Promise.all(writes);
    await read(a);
    // Every number, once, in order: nothing committed behind the cursor, nothing read twice.
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const hours = await b.metrics({ period: 'hour', from: new Date('2024-03-01T10:00:00Z'), to: new Date('2024-03-01T11:00:00Z') });
    expect(hours.map((h) => [h.requests, h.successful, h.totalResponseTime])).toEqual([[200, 200, 200]]);
  });
});

describe('PostgreSQL transaction log filters decided in JavaScript', () => {
  it('reads a regular-expression filter window by window, in order, and pages, counts and streams it alike', async () => {
    const schema = newSchema();
    const log = createPostgresTransactionLog({
      database: new PostgresDatabase({ settings: settingsFor(await url()), logger: silent, schema }),
      logger: silent,
      instanceId: 'a',
      scanWindowRows: 4,
    });
    opened.push(log);
    await log.open();
    const base = Date.parse('2024-03-01T00:00:00Z');
    const docs = Array.from({ length: 40 }, (_, i) => {
      const at = new Date(base + i * 60_000).toISOString();
      return tx(at, { request: { ...tx(at).request, path: i % 3 === 0 ? `/hl7/ORU/${i}` : `/fhir/Patient/${i}` } });
    });
    for (const doc of docs) await log.insert(doc);
    // Newest first among the matches: every third, from 39 down.
    const expected = docs.filter((_, i) => i % 3 === 0).reverse().map((doc) => doc._id);
    const filter = { path: '^/hl7/ORU/\\d+$' };
    expect((await log.page(filter, { limit: 100 })).map((doc) => doc._id)).toEqual(expected);
    expect((await log.page(filter, { limit: 3, skip: 4 })).map((doc) => doc._id)).toEqual(expected.slice(4, 7));
    expect(await log.count(filter)).toBe(expected.length);
    const streamed: string[] = [];
    for await (const doc of log.stream(filter, { limit: 5, skip: 2 })) streamed.push(doc._id);
    expect(streamed).toEqual(expected.slice(2, 7));
  });
});

describe('PostgreSQL transaction log retention', () => {
  it('drops days larger than one delete batch, whole, and keeps the rest', async () => {
    const schema = newSchema();
    const log = await logOf(schema, 'seed');
    // 12,000 rows a day over three days: more than two delete batches for each dropped day.
    await runSql(await url(), `
      SET search_path = ${schema};
      INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, instance, doc)
      SELECT lpad(to_hex(ts / 1000), 8, '0') || lpad(to_hex(i), 16, '0'), ts, 'ch-a', NULL, 'Successful', 200, 'GET', '/p', false, 'seed', '{}'::jsonb
        FROM (SELECT i, ${Date.parse('2024-03-01T00:00:00Z')}::bigint + (i / 12000) * 86400000 + (i % 12000) * 7000 AS ts FROM generate_series(0, 35999) AS i) AS s;`);
    const kept = await log.insert(tx('2024-03-03T23:00:00Z'));
    expect(await log.days()).toEqual(['2024-03-01', '2024-03-02', '2024-03-03']);
    expect(await log.dropDaysBefore('2024-03-03')).toEqual(['2024-03-01', '2024-03-02']);
    expect(await log.days()).toEqual(['2024-03-03']);
    expect(await log.count({})).toBe(12_001);
    expect(await log.get(kept._id)).toEqual(kept);
  });
});

describe('PostgreSQL transaction log plans', () => {
  const DAY = 86_400_000;
  const end = Date.parse('2024-03-31T00:00:00Z');

  /** EXPLAIN of what `page` runs, as JSON. */
  async function plan(schema: string, filter: TransactionFilter): Promise<string> {
    const { text, values } = transactionPageStatement(filter, { limit: 20 });
    const client = new pg.Client({ connectionString: await url(), options: `-c search_path=${schema}` });
    await client.connect();
    try {
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
      return JSON.stringify(rows[0]?.['QUERY PLAN']);
    } finally {
      await client.end();
    }
  }

  it('serves the newest page and a channel + status page over 7 days from indexes, in order, without a sort', async () => {
    const schema = newSchema();
    const log = await logOf(schema, 'seed');
    // 60,000 rows over 30 days, five channels, one in twenty Failed: the bench's shape, seeded by the server itself.
    const rows = 60_000;
    await runSql(await url(), `
      SET search_path = ${schema};
      INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, instance, doc)
      SELECT lpad(to_hex(ts / 1000), 8, '0') || lpad(to_hex(i), 16, '0'), ts, channel, NULL, status, CASE WHEN status = 'Failed' THEN 503 ELSE 200 END,
             'GET', '/fhir/Patient', false, 'seed', jsonb_build_object('channelID', channel, 'status', status)
        FROM (SELECT i, ${end - 30 * DAY}::bigint + i::bigint * ${Math.floor((30 * DAY) / rows)} AS ts, 'ch-' || (i % 5) AS channel,
                     CASE WHEN (i / 5) % 20 = 0 THEN 'Failed' ELSE 'Successful' END AS status
                FROM generate_series(1, ${rows}) AS i) AS s;
      ANALYZE transactions;`);
    expect(await log.count({})).toBe(rows);

    const newest = await plan(schema, {});
    expect(newest).toContain('"Index Name":"transactions_time"');
    expect(newest).toContain('"Scan Direction":"Backward"');
    expect(newest).not.toMatch(/"Node Type":"(Sort|Seq Scan|Incremental Sort)"/);

    const week: TransactionFilter = { channelID: ['ch-1'], status: ['Failed'], from: new Date(end - 7 * DAY), to: new Date(end) };
    const filtered = await plan(schema, week);
    expect(filtered).toMatch(/"Index Name":"transactions_(channel|status)_time"/);
    expect(filtered).toContain('"Scan Direction":"Backward"');
    expect(filtered).not.toMatch(/"Node Type":"(Sort|Seq Scan|Incremental Sort|Bitmap Heap Scan)"/);
    const page = await log.page(week, { limit: 20 });
    expect(page).toHaveLength(20);
    expect(page.every((record) => record.channelID === 'ch-1' && record.status === 'Failed')).toBe(true);
  });
});
