/**
 * Tasks across restarts: a task stopped mid-way resumes where it stopped, and no transaction of a task is re-run
 * twice, whether Junction stopped cleanly, was killed, or crashed at either side of storing a re-run.
 */
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { basic, completedTransaction, NEW_ROOT_PASSWORD, ROOT_EMAIL, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { sleep, until } from '../helpers/wait.js';
import { loopbackServiceEnv, runService } from '../helpers/process.js';
import type { ServiceProcess } from '../helpers/process.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';

interface TaskView {
  _id: string;
  status: string;
  remainingTransactions: number;
  transactions: { tid: string; tstatus: string; rerunID?: string; rerunStatus?: string }[];
}

/** An upstream that answers after `delayMs`, counting the requests per path and those still unanswered. */
async function countingUpstream(delayMs: number): Promise<{ upstream: Upstream; hits: Map<string, number>; inFlight: () => number }> {
  const hits = new Map<string, number>();
  let inFlight = 0;
  const upstream = await httpUpstream((req, res) => {
    inFlight++;
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    void readBody(req).then(async () => {
      await sleep(delayMs);
      inFlight--;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  return { upstream, hits, inFlight: () => inFlight };
}

describe('re-run tasks across restarts', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(t: TestJunction, admin: { authorization: string }, upstream: Upstream, count: number): Promise<TransactionRecord[]> {
    const channel = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'restartable', urlPattern: '^/r/.*$', authType: 'public', routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(channel.status).toBe(201);
    const originals: TransactionRecord[] = [];
    for (let i = 0; i < count; i++) {
      const res = await fetch(`${t.httpUrl}/r/${i}`);
      await res.arrayBuffer();
      originals.push(await completedTransaction(t, res.headers.get('x-openhim-transactionid')));
    }
    return originals;
  }

  it('resumes a task stopped mid-way on the same data folder and re-runs each transaction once', async () => {
    const { upstream, hits } = await countingUpstream(60);
    cleanups.push(() => upstream.close());
    const dataDir = await tempDir();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startJunction({}, { dataDir });
    cleanups.push(() => first.stop());
    const admin = { authorization: await unlockRoot(first) };
    const originals = await setUp(first, admin, upstream, 40);

    let processed = 0;
    first.junction.events.on('task.progress', (e) => (processed = e.processed));
    const created = await first.request('/tasks', { method: 'POST', headers: admin, json: { tids: originals.map((o) => o._id), batchSize: 4 } });
    expect(created.status).toBe(201);
    const taskId = (created.body as TaskView)._id;
    await until('a few batches', () => (processed >= 8 ? true : undefined));
    await first.stop();
    const rerunBeforeStop = [...hits.values()].filter((n) => n === 2).length;
    expect(rerunBeforeStop).toBeGreaterThanOrEqual(8);
    expect(rerunBeforeStop).toBeLessThan(40);

    const second = await startJunction({}, { dataDir });
    cleanups.push(() => second.stop());
    const root = { authorization: basic(ROOT_EMAIL, NEW_ROOT_PASSWORD) };
    const done = await until('the resumed task to complete', async () => {
      const view = (await second.request(`/tasks/${taskId}`, { headers: root })).body as TaskView;
      return view.status === 'Completed' ? view : undefined;
    });
    expect(done.transactions).toHaveLength(40);
    expect(done.transactions.every((i) => i.tstatus === 'Completed' && i.rerunStatus === 'Successful')).toBe(true);
    for (const original of originals) expect(hits.get(original.request.path), original.request.path).toBe(2);
  });

  it('after a crash, records a re-run that was stored (so sent) and re-runs one that was not, each once', async () => {
    const { upstream, hits } = await countingUpstream(0);
    cleanups.push(() => upstream.close());
    const dataDir = await tempDir();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startJunction({}, { dataDir });
    cleanups.push(() => first.stop());
    const admin = { authorization: await unlockRoot(first) };
    const [sent, unsent, untouched] = await setUp(first, admin, upstream, 3);
    if (sent === undefined || unsent === undefined || untouched === undefined) throw new Error('setup');
    const created = await first.request('/tasks', { method: 'POST', headers: admin, json: { tids: [sent._id, unsent._id, untouched._id], paused: true } });
    const taskId = (created.body as TaskView)._id;

    // What a crash leaves mid-batch: one re-run stored (the pipeline stores before it sends) and still Processing,
    // and one task transaction marked Processing whose re-run never got stored.
    const at = new Date();
    const storedRerun = await first.junction.transactions.insert({
      ...sent,
      _id: newTransactionId(at),
      status: 'Processing',
      request: { ...sent.request, timestamp: at },
      parentID: sent._id,
    });
    const items = first.junction.store.taskTransactions;
    const [itemSent, itemUnsent] = await items.find({ taskID: taskId }, { sort: { index: 1 } });
    await items.updateById(itemSent?._id ?? '', { set: { tstatus: 'Processing', rerunID: storedRerun._id } });
    await items.updateById(itemUnsent?._id ?? '', { set: { tstatus: 'Processing', rerunID: newTransactionId(at) } });
    await first.stop();

    const second = await startJunction({}, { dataDir });
    cleanups.push(() => second.stop());
    const root = { authorization: basic(ROOT_EMAIL, NEW_ROOT_PASSWORD) };
    expect((await second.request(`/tasks/${taskId}`, { method: 'PUT', headers: root, json: { status: 'Queued' } })).status).toBe(200);
    const done = await until('the task to complete', async () => {
      const view = (await second.request(`/tasks/${taskId}`, { headers: root })).body as TaskView;
      return view.status === 'Completed' ? view : undefined;
    });

    expect(hits.get(sent.request.path)).toBe(1);
    expect(hits.get(unsent.request.path)).toBe(2);
    expect(hits.get(untouched.request.path)).toBe(2);
    // The stored re-run was interrupted mid-flight, so start-up recovery failed it; it is the task's outcome.
    expect(done.transactions[0]).toMatchObject({ tid: sent._id, tstatus: 'Completed', rerunID: storedRerun._id, rerunStatus: 'Failed' });
    expect(done.transactions[1]).toMatchObject({ tid: unsent._id, tstatus: 'Completed', rerunStatus: 'Successful' });
    expect(done.transactions[1]?.rerunID).not.toBe(itemUnsent?.rerunID);
    expect(await second.junction.transactions.get(sent._id)).toMatchObject({ wasRerun: true, childIDs: [storedRerun._id] });
  });

  describe('a killed service process', () => {
    let service: ServiceProcess | undefined;
    afterEach(() => {
      if (service?.child.exitCode === null) service.child.kill('SIGKILL');
    });

    it('resumes after SIGKILL mid-batch without sending any re-run twice', async () => {
      const { upstream, hits, inFlight } = await countingUpstream(250);
      cleanups.push(() => upstream.close());
      const dataDir = await tempDir();
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      const env = await loopbackServiceEnv(dataDir, 'crash-test-password-1');
      const api = `http://127.0.0.1:${env.JUNCTION_API_PORT}`;
      const headers = { authorization: basic(ROOT_EMAIL, env.JUNCTION_ADMIN_PASSWORD), 'content-type': 'application/json' };
      const call = async (path: string, init: { method?: string; json?: unknown } = {}) => {
        const res = await fetch(`${api}${path}`, { method: init.method ?? 'GET', headers, ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }) });
        return { status: res.status, body: (await res.json()) };
      };

      service = runService([], env);
      await service.ready;
      const channel = await call('/channels', { method: 'POST', json: { name: 'killed', urlPattern: '^/k/.*$', authType: 'public', routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }] } });
      expect(channel.status).toBe(201);
      const tids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await fetch(`http://127.0.0.1:${env.JUNCTION_ROUTER_HTTP_PORT}/k/${i}`);
        await res.arrayBuffer();
        tids.push(res.headers.get('x-openhim-transactionid') ?? '');
      }
      // A transaction still Processing cannot be re-run: wait for the originals' second writes.
      for (const id of tids) await until(`transaction ${id}`, async () => ((await call(`/transactions/${id}`)).body as { status: string }).status !== 'Processing' || undefined);
      const created = await call('/tasks', { method: 'POST', json: { tids, batchSize: 5 } });
      expect(created.status).toBe(201);
      const taskId = (created.body as TaskView)._id;

      // Killed while the upstream holds a batch: those re-runs were stored and sent, and never answered.
      await until('a batch in flight after some progress', () => ([...hits.values()].filter((n) => n === 2).length >= 10 && inFlight() > 0 ? true : undefined));
      service.child.kill('SIGKILL');
      await service.exited;
      const sentBeforeKill = new Map(hits);

      service = runService([], env);
      await service.ready;
      const done = await until('the resumed task to complete', async () => {
        const view = (await call(`/tasks/${taskId}?filterLimit=100`)).body as TaskView;
        return view.status === 'Completed' ? view : undefined;
      });
      service.child.kill('SIGTERM');
      await service.exited;

      expect(done.transactions).toHaveLength(30);
      expect(done.transactions.every((i) => i.tstatus === 'Completed')).toBe(true);
      const paths = Array.from({ length: 30 }, (_, i) => `/k/${i}`);
      for (const path of paths) expect(hits.get(path), path).toBeLessThanOrEqual(2);
      // Those the kill caught mid-flight were sent once and recorded as interrupted; every other one ran once.
      const interrupted = done.transactions.filter((i) => i.rerunStatus === 'Failed');
      expect(interrupted.length).toBeGreaterThan(0);
      for (const [i, item] of done.transactions.entries()) {
        const path = `/k/${i}`;
        if (item.rerunStatus === 'Failed') expect(hits.get(path), path).toBe(sentBeforeKill.get(path));
        else expect([item.rerunStatus, hits.get(path)], path).toEqual(['Successful', 2]);
      }
    });
  });
});
