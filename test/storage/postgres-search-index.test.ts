/**
 * What only the PostgreSQL search index does (issue 37; the shared cases run in search-index-engines.test.ts): pages
 * by key read off the keys index newest first, without a sort; a common word walks newest first, a rare one is
 * collected from the GIN index; entries go in the statement that removes their transactions; words are split as the
 * filter splits them, whatever the text holds.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { pino } from 'pino';
import type { ClinicalKey } from '../../service/domain/clinical/clinical-key.js';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import type { PostgresTransactionLog } from '../../service/storage/postgres/index.js';
import { transactionPageStatement } from '../../service/storage/postgres/transaction-log.js';
import { WALK_FROM_SHARE, wordsPlanOf } from '../../service/storage/postgres/search-where.js';
import type { WordsPlan } from '../../service/storage/postgres/search-where.js';
import type { IndexedTransaction } from '../../service/storage/search-index.js';
import type { TransactionFilter, TransactionRecord } from '../../service/storage/transactions.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { startPostgresServer } from '../helpers/postgres-server.js';
import { StoreError } from '../../service/storage/store.js';
import { tx } from './transaction-log-contract.js';

const silent = pino({ level: 'silent' });
let database: Promise<TestDatabase> | undefined;
const closers: (() => Promise<void>)[] = [];

async function url(): Promise<string> {
  database ??= createTestDatabase();
  return (await database).url;
}

interface Opened {
  schema: string;
  log: PostgresTransactionLog;
  index: PostgresTransactionLog['searchIndex'];
}

/** A log and its search index on one pool, in a schema of their own. */
async function open(): Promise<Opened> {
  const schema = newSchemaName();
  const shared = new PostgresDatabase({ settings: settingsFor(await url()), logger: silent, schema });
  const log = createPostgresTransactionLog({ database: shared, logger: silent, instanceId: 'search' });
  const index = log.searchIndex;
  await log.open();
  closers.push(async () => {
    await log.close();
    await runSql(await url(), `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
  return { schema, log, index };
}

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await (await database)?.drop();
});

function key(name: ClinicalKey['name'], value: string, authority?: string): ClinicalKey {
  return { name, value, field: name === 'patientId' ? 'PID-3' : 'MSH-10', part: 'request', ...(authority === undefined ? {} : { authority }) };
}

function entry(record: TransactionRecord, keys: ClinicalKey[], text = ''): IndexedTransaction {
  return { id: record._id, requestTimestamp: record.request.timestamp, channelID: record.channelID, keys, text };
}

async function rowsOf(opened: Opened, table: 'search_keys' | 'search_docs'): Promise<number> {
  const { rows } = await runSql(await url(), `SELECT count(*)::int AS n FROM ${opened.schema}.${table}`);
  return (rows[0] as { n: number }).n;
}

const ids = (records: readonly TransactionRecord[]): string[] => records.map((r) => r._id);

describe('PostgreSQL search index: writing and removing', () => {
  it('removes entries in the statement that removes their transactions, and writes none for a transaction already gone', async () => {
    const opened = await open();
    const { log, index } = opened;
    const old = await log.insert(tx('2024-03-01T10:00:00Z'));
    const kept = await log.insert(tx('2024-03-02T10:00:00Z'));
    const removed = await log.insert(tx('2024-03-02T11:00:00Z'));
    const never = tx('2024-03-02T12:00:00Z');
    await index.write([old, kept, removed, never].map((r) => entry(r, [key('patientId', 'MRN-1'), key('facility', 'LAB')], 'potassium')));
    expect(await rowsOf(opened, 'search_docs')).toBe(3);
    expect(await rowsOf(opened, 'search_keys')).toBe(3);
    expect(await log.remove(removed._id)).toBe(true);
    expect(await log.dropDaysBefore('2024-03-02')).toEqual(['2024-03-01']);
    expect(await rowsOf(opened, 'search_docs')).toBe(1);
    expect(await rowsOf(opened, 'search_keys')).toBe(1);
    expect(ids(await log.page({ keys: [{ name: 'patientId', value: 'mrn-1' }] }, { limit: 10 }))).toEqual([kept._id]);
  });

  it('replaces a transaction\'s entries; an entry with neither keys nor words leaves none; the state moves with the batch', async () => {
    const opened = await open();
    const { log, index } = opened;
    const a = await log.insert(tx('2024-03-01T10:00:00Z'));
    const b = await log.insert(tx('2024-03-01T10:00:01Z'));
    await index.write([entry(a, [key('patientId', 'P1', 'HOSP'), key('patientId', 'p1', 'CLINIC')], 'first'), entry(b, [key('controlId', 'C1')], 'x')], { finishedSeq: 7 });
    expect(await rowsOf(opened, 'search_keys')).toBe(2);
    expect(await log.count({ keys: [{ name: 'patientId', value: 'P1', authority: 'clinic' }] })).toBe(1);
    await index.write([entry(a, [key('patientId', 'P2')], 'second'), entry(b, [], '')], { finishedSeq: 9, backfillBefore: b._id });
    expect(await log.count({ keys: [{ name: 'patientId', value: 'P1' }] })).toBe(0);
    expect(ids(await log.page({ keys: [{ name: 'patientId', value: 'p2' }], text: 'SECOND' }, { limit: 10 }))).toEqual([a._id]);
    expect(await log.count({ text: 'first' })).toBe(0);
    expect(await rowsOf(opened, 'search_docs')).toBe(1);
    expect(await index.state()).toMatchObject({ finishedSeq: 9, backfillBefore: b._id, backfillDone: false });
    // A state alone is one update; a refused write changes nothing at all.
    await index.write([], { backfillDone: true, backfillCovered: 2 });
    await expect(index.write([entry(a, [], 'third')], { finishedSeq: -1 })).rejects.toThrow(/finishedSeq/);
    expect(await index.state()).toEqual({ finishedSeq: 9, backfillBefore: b._id, backfillDone: true, backfillTotal: 0, backfillCovered: 2 });
    expect(await log.count({ text: 'second' })).toBe(1);
  });

  it('drops a channel\'s words of the days before, keeping its keys and the other channels\' words', async () => {
    const { log, index } = await open();
    const a = await log.insert(tx('2024-03-01T10:00:00Z', { channelID: 'ch-a' }));
    const b = await log.insert(tx('2024-03-02T10:00:00Z', { channelID: 'ch-a' }));
    const c = await log.insert(tx('2024-03-01T10:00:00Z', { channelID: 'ch-b' }));
    await index.write([a, b, c].map((r) => entry(r, [key('patientId', 'P9')], 'glucose')));
    expect(await index.removeChannelTextBefore('ch-a', '2024-03-02')).toBe(1);
    expect(await index.removeChannelTextBefore('ch-a', '2024-03-02')).toBe(0);
    expect(ids(await log.page({ text: 'glucose' }, { limit: 10 }))).toEqual([b._id, c._id]);
    expect(await log.count({ keys: [{ name: 'patientId', value: 'p9' }] })).toBe(3);
    await expect(index.removeChannelTextBefore('ch-a', '2024-3-2')).rejects.toThrow(/not a day/);
  });
});

describe('PostgreSQL search index: an outage', () => {
  it('refuses a write while the server is down with a StoreError and nothing half-written, and takes the same write once it is back', async () => {
    const server = await startPostgresServer();
    const shared = new PostgresDatabase({ settings: settingsFor(server.url), logger: silent, probeEveryMs: 50 });
    const log = createPostgresTransactionLog({ database: shared, logger: silent, instanceId: 'outage' });
    try {
      await log.open();
      const a = await log.insert(tx('2024-03-01T10:00:00Z'));
      const batch = [entry(a, [key('patientId', 'P1')], 'sodium')];
      await server.stop();
      const refused = await log.searchIndex.write(batch, { finishedSeq: 1 }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(StoreError);
      await server.start();
      // The pool's connections died with the server: the retry may need a fresh one, as the indexer's next turn would.
      await expect.poll(() => log.searchIndex.write(batch, { finishedSeq: 1 }).then(() => true, () => false), { timeout: 20_000, interval: 100 }).toBe(true);
      expect(ids(await log.page({ keys: [{ name: 'patientId', value: 'p1' }], text: 'sodium' }, { limit: 5 }))).toEqual([a._id]);
      expect((await log.searchIndex.state()).finishedSeq).toBe(1);
    } finally {
      await log.close();
      await server.destroy();
    }
  });
});

describe('PostgreSQL search index: keys', () => {
  it('gives a transaction once for any, whichever names hold the value, and narrows an authority to the name it was given for', async () => {
    const { log, index } = await open();
    const a = await log.insert(tx('2024-03-01T10:00:00Z'));
    const b = await log.insert(tx('2024-03-01T10:00:01Z'));
    await index.write([
      entry(a, [key('patientId', '1004', 'HOSP'), key('controlId', '1004'), { ...key('orderNumber', '1004', 'LAB'), field: 'ORC-2' }]),
      entry(b, [key('orderNumber', '1004', 'HOSP')]),
    ]);
    expect(ids(await log.page({ keys: [{ name: 'any', value: '1004' }] }, { limit: 10 }))).toEqual([b._id, a._id]);
    expect(await log.count({ keys: [{ name: 'any', value: '1004' }] })).toBe(2);
    expect(ids(await log.page({ keys: [{ name: 'patientId', value: '1004', authority: 'hosp' }] }, { limit: 10 }))).toEqual([a._id]);
    expect(ids(await log.page({ keys: [{ name: 'orderNumber', value: '1004', authority: 'hosp' }] }, { limit: 10 }))).toEqual([b._id]);
    expect(ids(await log.page({ keys: [{ name: 'any', value: '1004', authority: 'lab' }] }, { limit: 10 }))).toEqual([a._id]);
    expect((await index.keysOf([a._id, b._id])).get(a._id)).toHaveLength(3);
  });
});

describe('PostgreSQL search index: words', () => {
  it('walks newest first only when every word is common', () => {
    const shares = new Map([['adt', 0.9], ['common', WALK_FROM_SHARE], ['often', WALK_FROM_SHARE / 2]]);
    expect(wordsPlanOf(['adt', 'common'], shares)).toBe('walk');
    expect(wordsPlanOf(['adt', 'often'], shares)).toBe('collect');
    expect(wordsPlanOf(['adt', 'unseen'], shares)).toBe('collect');
    expect(wordsPlanOf(['adt'], new Map())).toBe('collect');
  });

  it('splits text as the filter splits a search, so parts of addresses, paths and versions are found, and operators are plain words', async () => {
    const { log, index } = await open();
    const a = await log.insert(tx('2024-03-01T10:00:00Z'));
    const b = await log.insert(tx('2024-03-01T10:00:01Z'));
    await index.write([
      entry(a, [], 'MSH|^~\\&|LAB|lab.example.org|2.5.1|results@clinic.example|/fhir/Observation/42 Größe'),
      entry(b, [], "it's a & b | !c <-> d:* 'quoted'"),
    ]);
    for (const text of ['example', '2.5', 'results', 'observation 42', 'größe']) {
      expect(ids(await log.page({ text }, { limit: 5 })), text).toEqual([a._id]);
    }
    for (const text of ['!c', "'quoted'", 'd:*', 'a & b', "it's"]) {
      expect(ids(await log.page({ text }, { limit: 5 })), text).toEqual([b._id]);
    }
    expect(await log.count({ text: 'example missing' })).toBe(0);
  });

  it('indexes a text of more distinct words than a tsvector holds, up to its budget, without failing the batch', async () => {
    const { log, index } = await open();
    const a = await log.insert(tx('2024-03-01T10:00:00Z'));
    const many = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}x${'y'.repeat(i % 7)}`).join(' ');
    await index.write([entry(a, [key('patientId', 'P1')], `first ${many} ${'z'.repeat(5000)}`)]);
    expect(ids(await log.page({ text: 'first w0x' }, { limit: 5 }))).toEqual([a._id]);
  });
});

describe('PostgreSQL search index: plans at scale', () => {
  /** EXPLAIN of what `page` runs, as JSON. */
  async function plan(schema: string, filter: TransactionFilter, wordsPlan?: WordsPlan): Promise<string> {
    const { text, values } = transactionPageStatement(filter, { limit: 20 }, wordsPlan);
    const client = new pg.Client({ connectionString: await url(), options: `-c search_path=${schema}` });
    await client.connect();
    try {
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
      return JSON.stringify(rows[0]?.['QUERY PLAN']);
    } finally {
      await client.end();
    }
  }

  it('reads a page by key off the keys index newest first (any in one range), a common word newest first, a rare one from the GIN index', async () => {
    const opened = await open();
    const { schema, log } = opened;
    const rows = 40_000;
    const start = Date.parse('2024-03-01T00:00:00Z');
    // Patients a few messages each but p0 in thousands; every message an ADT with a control id; a third say "common".
    await runSql(await url(), `
      SET search_path = ${schema};
      INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, instance, doc)
      SELECT id, ts, channel, NULL, 'Successful', 200, 'POST', '/hl7', false, 'seed', jsonb_build_object('_id', id, 'channelID', channel)
        FROM (SELECT lpad(to_hex(ts / 1000), 8, '0') || lpad(to_hex(i), 16, '0') AS id, ts, 'ch-' || (i % 5) AS channel
                FROM (SELECT i, ${start}::bigint + i::bigint * 60000 AS ts FROM generate_series(1, ${rows}) AS i) AS s) AS r;
      INSERT INTO search_channels (channel) SELECT 'ch-' || i FROM generate_series(0, 4) AS i;
      CREATE TEMPORARY VIEW seeded AS
        SELECT decode(t.id, 'hex') AS tx, t.ts, c.id AS channel FROM transactions t JOIN search_channels c ON c.channel = t.channel;
      INSERT INTO search_docs (tx, ts, channel, keys, words)
      SELECT tx, ts, channel, NULL, 'adt w' || (ts / 60000 % 9973) || CASE WHEN ts / 60000 % 3 = 0 THEN ' common' ELSE '' END
        FROM seeded;
      INSERT INTO search_keys (ts, channel, names, kind, tx, value, authorities)
      SELECT ts, channel, 8, 't', tx, 'adt', NULL::text FROM seeded
      UNION ALL SELECT ts, channel, 4, 'i', tx, 'c' || (ts / 60000), NULL::text FROM seeded
      UNION ALL SELECT ts, channel, 1, 'i', tx, 'p' || CASE WHEN ts / 60000 % 10 = 0 THEN 0 ELSE ts / 60000 % 9001 END, E'\\x1f1|hosp\\x1f' FROM seeded
      UNION ALL SELECT ts, channel, 2, 'i', tx, 'o' || (ts / 60000 % 7919), E'\\x1f2|lab\\x1f' FROM seeded;
      ANALYZE;`);
    expect(await log.count({ keys: [{ name: 'patientId', value: 'p0' }] })).toBeGreaterThanOrEqual(rows / 10);

    for (const name of ['patientId', 'any'] as const) {
      const patient = await plan(schema, { keys: [{ name, value: 'P0' }], channelID: ['ch-0', 'ch-1'] });
      expect(patient, name).toContain('"Index Name":"search_keys_lookup"');
      expect(patient, name).toContain('"Scan Direction":"Backward"');
      expect(patient, name).not.toMatch(/"Node Type":"(Sort|Incremental Sort|Bitmap Heap Scan|Append|Merge Append|Gather|Gather Merge)"/);
      // The one sequential scan allowed is of the few channels' numbers, read once for the statement (an InitPlan).
      expect(patient, name).not.toMatch(/"Node Type":"Seq Scan","Parent Relationship":"(?!InitPlan)/);
      expect(patient, name).not.toMatch(/"Node Type":"Seq Scan"[^}]*"Relation Name":"(search_keys|search_docs|transactions)"/);
    }
    const both = await plan(schema, { keys: [{ name: 'messageType', value: 'adt' }, { name: 'orderNumber', value: 'o5' }], text: 'common' });
    expect(both).toMatch(/"Index Cond":"\(\(kind = 'i'::\\"char\\"\) AND \(value = 'o5'::text\)\)"/);

    const common = await plan(schema, { text: 'common' }, 'walk');
    expect(common).toContain('"Index Name":"search_docs_time"');
    expect(common).not.toMatch(/"Node Type":"(Sort|Incremental Sort|Bitmap Heap Scan)"/);
    const rare = await plan(schema, { text: 'w17' }, 'collect');
    expect(rare).toContain('"Index Name":"search_docs_words"');
    // What page picks, from the statistics ANALYZE kept of the words: "common" is in a third of them, "w17" in few.
    const newest = await log.page({ text: 'common' }, { limit: 3 });
    const expected = await runSql(await url(), `SELECT encode(tx, 'hex') AS tx FROM ${schema}.search_docs WHERE words LIKE '% common' ORDER BY ts DESC LIMIT 3`);
    expect(ids(newest)).toEqual((expected.rows as { tx: string }[]).map((r) => r.tx));
    expect(await log.countUpTo({ text: 'common' }, 1000)).toEqual({ count: 1000, exact: false });
    // The statistics put "common" in a third of 40,000: past 1,000 for sure, so that count is answered without reading
    // search_docs (locked here against any reader); within a channel, or with a time range, it is counted as before.
    const locker = new pg.Client({ connectionString: await url(), options: `-c search_path=${schema}` });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE search_docs IN ACCESS EXCLUSIVE MODE');
      const answered = await Promise.race([log.countUpTo({ text: 'common' }, 1000), new Promise((resolve) => setTimeout(() => resolve('still counting after 5 s'), 5000))]);
      expect(answered).toEqual({ count: 1000, exact: false });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const counted = async (where: string): Promise<number> => Number(((await runSql(await url(), `SELECT count(*) AS n FROM ${schema}.transactions t JOIN ${schema}.search_docs d ON d.tx = decode(t.id, 'hex') WHERE d.words LIKE '% common' ${where}`)).rows as { n: string }[])[0]?.n);
    const inChannel = await counted("AND t.channel = 'ch-1'");
    expect(inChannel).toBeGreaterThan(1000);
    expect(await log.countUpTo({ text: 'common', channelID: ['ch-1'] }, 100_000)).toEqual({ count: inChannel, exact: true });
    // Below three times the cap the statistics are not trusted: counted, exactly.
    expect(await log.countUpTo({ text: 'common' }, 20_000)).toEqual({ count: await counted(''), exact: true });
    const found = await log.page({ text: 'w17' }, { limit: 20 });
    expect(found.length).toBeGreaterThan(3);
    expect(await log.countUpTo({ text: 'w17' }, 1000)).toEqual({ count: found.length, exact: true });
  });

});
