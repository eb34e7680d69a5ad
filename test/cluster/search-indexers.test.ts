/**
 * Issue 37 on a cluster: two whole instances on one PostgreSQL database each run the search indexer as a scheduled
 * job under the `search-index` lease. Transactions written through both are indexed, each once (one row per
 * transaction, the same keys for each), by whichever instance holds the lease while the other's indexer never runs;
 * when the holder stops, the other takes the lease and indexes what follows.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';

const adt = (n: number) => [`MSH|^~\\&|ADT|SMH|LIS|LAB|20260115083000||ADT^A01^ADT_A01|CL-${n}|P|2.5.1`, `PID|1||MRN-${n}^^^SMH^MR||Rivera^Ana`].join('\r');

describe('two search indexers on one PostgreSQL database', () => {
  let db: TestDatabase;
  let shared: string;
  let client: pg.Client;
  const instances: TestJunction[] = [];
  let admin: { authorization: string };
  let channelID: string;
  let sent = 0;

  const start = async (): Promise<TestJunction> => {
    const t = await startJunction({ storage: { engine: 'postgres', postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: join(shared, 'keystore.secret') } });
    instances.push(t);
    return t;
  };

  /** `n` transactions written through `t`'s API, each with its own control ID. */
  async function send(t: TestJunction, n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      sent++;
      const timestamp = new Date(Date.UTC(2026, 0, 15, 8, 0, sent)).toISOString();
      const res = await t.inject('/transactions', { method: 'POST', headers: admin, json: { channelID, status: 'Successful', request: { path: '/ward', method: 'POST', body: adt(sent), timestamp } } });
      expect(res.status, res.text).toBe(201);
    }
  }

  const one = async (sql: string): Promise<number> => Number(((await client.query<{ n: string }>(sql)).rows[0] as { n: string }).n);

  /** Until the index holds a row for each transaction sent and the feed is read to its end. */
  async function indexedAll(t: TestJunction): Promise<void> {
    await until(
      `${sent} transactions indexed`,
      async () => {
        const [state, last] = await Promise.all([t.junction.search.index.state(), t.junction.transactions.lastFinishedSeq()]);
        return state.finishedSeq >= last && state.backfillDone && (await one('SELECT count(*) AS n FROM search_docs')) === sent ? true : undefined;
      },
      60_000,
    );
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    shared = await tempDir('junction-search-cluster-');
    await start();
    await start();
    admin = { authorization: await unlockRoot(instances[0]!) };
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const created = await instances[0]!.inject('/channels', { method: 'POST', headers: admin, json: { name: 'ward', urlPattern: '^/ward$', authType: 'public', routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] } });
    expect(created.status, created.text).toBe(201);
    channelID = (created.body as { _id: string })._id;
  });

  afterAll(async () => {
    for (const t of instances.splice(0)) await t.destroy();
    await client?.end();
    await db?.drop();
    if (shared !== undefined) await rm(shared, { recursive: true, force: true });
  });

  it('index what both receive, each transaction once, by the lease holder alone; the other takes over when it stops', async () => {
    const [a, b] = instances as [TestJunction, TestJunction];
    await send(a, 15);
    await send(b, 15);
    await indexedAll(a);
    // One row per transaction, and every transaction with the same keys (control ID, patient ID, message type twice).
    expect(await one('SELECT count(DISTINCT tx) AS n FROM search_keys')).toBe(sent);
    expect(await one('SELECT count(DISTINCT c) AS n FROM (SELECT count(*) AS c FROM search_keys GROUP BY tx) per')).toBe(1);
    const holder = (await client.query<{ holder: string }>("SELECT holder FROM cluster_leases WHERE job = 'search-index'")).rows[0]?.holder;
    expect(holder).toBeDefined();
    // Only the holder's indexer ever ran.
    const ran = instances.filter((t) => t.junction.search.indexer?.health().lastRunAt !== undefined);
    expect(ran).toHaveLength(1);
    const [runner] = ran as [TestJunction];
    const other = runner === a ? b : a;
    for (const control of [1, 16, 30]) {
      const found = await other.inject(`/transactions?controlId=CL-${control}`, { headers: admin });
      expect((found.body as unknown[]).length, found.text).toBe(1);
    }

    // The holder stops (giving its lease up); the survivor's indexer takes over and indexes what follows.
    instances.splice(instances.indexOf(runner), 1);
    await runner.destroy();
    await send(other, 10);
    await indexedAll(other);
    expect(other.junction.search.indexer?.health().lastRunAt).toBeDefined();
    expect(await one('SELECT count(DISTINCT tx) AS n FROM search_keys')).toBe(sent);
    const found = await other.inject(`/transactions?controlId=CL-${sent}`, { headers: admin });
    expect((found.body as unknown[]).length, found.text).toBe(1);
  });
});
