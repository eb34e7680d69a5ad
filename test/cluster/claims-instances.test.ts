/**
 * Issue 20: a re-run task on two whole Junction instances sharing one PostgreSQL database. The task is created
 * through the instance that does not hold the task job's lease, so that instance's wake starts it while the lease
 * holder's ticks (run here on demand) find it too; the claim lets only one of them run it, and each transaction
 * reaches the upstream once more, no more.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase, runSql } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { TASKS_JOB } from '../../service/schedulers/task-runner.js';

describe('a re-run task on two instances sharing PostgreSQL', () => {
  let db: TestDatabase;
  let shared: string;
  let upstream: Upstream;
  const hits = new Map<string, number>();
  const instances: TestJunction[] = [];
  let admin: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    shared = await tempDir('junction-claims-shared-');
    upstream = await httpUpstream((req, res) => {
      hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
      void readBody(req).then(() => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
    for (let i = 0; i < 2; i++) {
      instances.push(await startJunction({ storage: { engine: 'postgres', postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: join(shared, 'keystore.secret') } }));
    }
    admin = await unlockRoot(instances[0]!);
  });

  afterAll(async () => {
    for (const t of instances.splice(0)) await t.destroy();
    await upstream?.close();
    await db?.drop();
    if (shared !== undefined) await rm(shared, { recursive: true, force: true });
  });

  it('re-runs each transaction once while one instance is woken and the other ticks', async () => {
    const [first, second] = instances as [TestJunction, TestJunction];
    const headers = { authorization: admin };
    const channel = await first.inject('/channels', { method: 'POST', headers, json: { name: 'Rerun', urlPattern: '^/rerun/.*$', authType: 'public', routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }] } });
    expect(channel.status).toBe(201);
    const tids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${first.httpUrl}/rerun/${i}`);
      await res.arrayBuffer();
      tids.push(res.headers.get('x-openhim-transactionid') ?? '');
    }
    await until('the transactions to finish', async () => ((await first.junction.transactions.count({ status: ['Successful'] })) === tids.length ? true : undefined));

    // The holder of the task job's lease ticks; the other instance is the one the new task wakes.
    await first.junction.runJob(TASKS_JOB);
    const holder = (await runSql(db.url, 'SELECT holder FROM cluster_leases WHERE job = $1', [TASKS_JOB])).rows[0] as { holder: string } | undefined;
    const ticking = instances.find((t) => t.junction.cluster.instanceId === holder?.holder);
    const woken = instances.find((t) => t !== ticking);
    if (ticking === undefined || woken === undefined) throw new Error(`no instance holds the ${TASKS_JOB} lease`);

    const created = await woken.inject('/tasks', { method: 'POST', headers, json: { tids, batchSize: 2 } });
    expect(created.status).toBe(201);
    const taskId = (created.body as { _id: string })._id;
    const done = await until('the task to complete', async () => {
      await ticking.junction.runJob(TASKS_JOB);
      const task = await second.junction.store.tasks.findById(taskId);
      return task?.status === 'Completed' ? task : undefined;
    });

    expect(done).toMatchObject({ remainingTransactions: 0 });
    expect(done.claimedBy).toBeUndefined();
    // The original request and one re-run each.
    expect(Array.from({ length: tids.length }, (_, i) => hits.get(`/rerun/${i}`))).toEqual(tids.map(() => 2));
  });
});
