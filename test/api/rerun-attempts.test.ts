/**
 * Issue 36, re-runs a clinic can trust, on both storage engines: a bulk re-run's `latestAttemptOnly` (only the latest
 * attempt of each message goes out again; without it, OpenHIM's behaviour), the preview of a bulk re-run before it
 * starts (`POST /bulkrerun/preview`), and each task's outcome counts (`succeededTransactions`, `failedTransactions`,
 * `outcome`) in `GET /tasks`, `GET /tasks/:id` and the live progress. Real transactions through a real upstream on
 * 127.0.0.1 that answers 500, 400 or 200 as each test sets it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetch } from 'undici';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import type { TaskDetail, TaskView } from '../../service/contracts/tasks.js';
import type { BulkRerunAnswer, BulkRerunPreview } from '../../service/contracts/transactions.js';
import type { TaskProgressEvent } from '../../service/events/live.js';

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describe.each(['embedded', 'postgres'] as const)('re-run attempts and task outcomes on the %s engine', (engine) => {
  let t: TestJunction;
  let admin: { authorization: string };
  let rerunner: { authorization: string };
  let upstream: Upstream;
  let channelID = '';
  /** Paths the upstream answers 500 (Failed) or 400 (Completed); any other path gets 200 (Successful). */
  const down = new Set<string>();
  const refusing = new Set<string>();
  /** Each request the upstream received: its path and body. */
  const seen: { path: string; body: string }[] = [];
  const progress: TaskProgressEvent[] = [];
  /** Encounter 1 and its first re-run, made by the first test and re-run in bulk by the second. */
  const encounterOne = { original: '', rerun: '' };

  const errorOf = (res: TestResponse) => (res.body as { error: { code: string; message: string } }).error;

  async function send(path: string, body: string): Promise<string> {
    const res = await fetch(`${t.httpUrl}${path}`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
    await res.arrayBuffer();
    return (await completedTransaction(t, res.headers.get('x-openhim-transactionid')))._id;
  }

  async function task(id: string): Promise<TaskDetail> {
    const res = await t.inject(`/tasks/${id}?filterLimit=0`, { headers: admin });
    expect(res.status, res.text).toBe(200);
    return res.body as TaskDetail;
  }

  const finished = (id: string) =>
    until(`task ${id} to complete`, async () => {
      const view = await task(id);
      return view.status === 'Completed' ? view : undefined;
    });

  /** Re-runs one transaction as a task of its own and answers the new transaction's id once it is done. */
  async function rerunOne(tid: string): Promise<string> {
    const res = await t.inject('/tasks', { method: 'POST', headers: admin, json: { tids: [tid] } });
    expect(res.status, res.text).toBe(201);
    const done = await finished((res.body as TaskView)._id);
    return done.transactions[0]?.rerunID ?? '';
  }

  async function preview(filters: Record<string, unknown>, headers = admin): Promise<BulkRerunPreview> {
    const res = await t.inject('/bulkrerun/preview', { method: 'POST', headers, json: { filters } });
    expect(res.status, res.text).toBe(200);
    return res.body as BulkRerunPreview;
  }

  const bulk = (json: Record<string, unknown>) => t.inject('/bulkrerun', { method: 'POST', headers: admin, json });
  const removeTask = async (id: string) => expect((await t.inject(`/tasks/${id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
  const hits = (path: string) => seen.filter((s) => s.path === path).length;

  beforeAll(async () => {
    const storage = engine === 'postgres' ? { storage: { engine: 'postgres' as const, postgres: { url: (await (database ??= createTestDatabase())).url, poolSize: 4 } } } : {};
    t = await startJunction(storage);
    admin = { authorization: await unlockRoot(t) };
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then((body) => {
        const path = req.url ?? '';
        seen.push({ path, body });
        res.writeHead(down.has(path) ? 500 : refusing.has(path) ? 400 : 200, { 'content-type': 'text/plain' });
        res.end(down.has(path) ? 'the EHR is down' : 'ok');
      });
    });
    const channel = await t.inject('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'encounters', urlPattern: '^/enc/.*$', authType: 'public', txViewAcl: ['rerunners'], txRerunAcl: ['rerunners'], routes: [{ name: 'ehr', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(channel.status, channel.text).toBe(201);
    channelID = (channel.body as { _id: string })._id;
    const password = 'user-password-123';
    const created = await t.inject('/users', { method: 'POST', headers: admin, json: { email: 'rita@clinic.example', firstname: 'R', surname: 'B', groups: ['rerunners'], password } });
    expect(created.status, created.text).toBe(201);
    rerunner = { authorization: basic('rita@clinic.example', password) };
    t.junction.events.on('task.progress', (event) => progress.push(event));
  });

  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  it('previews a bulk re-run: what matches, what was re-run before, what is a re-run, and what each choice re-runs', async () => {
    down.add('/enc/1').add('/enc/2');
    const first = await send('/enc/1', 'Encounter 1');
    await send('/enc/2', 'Encounter 2');
    // The first encounter was re-run once already, and failed again.
    const firstRerun = await rerunOne(first);
    expect((await t.junction.transactions.get(firstRerun))?.status).toBe('Failed');
    Object.assign(encounterOne, { original: first, rerun: firstRerun });

    const filters = { status: 'Failed', 'request.path': '^/enc/[12]$' };
    const counts = await preview(filters);
    expect(counts).toEqual({ matching: 3, alreadyRerun: 1, reruns: 1, notRerunnable: 0, rerunnable: 3, latestAttempts: 2, warnings: [] });
    // The preview starts nothing.
    expect((await t.inject('/tasks', { headers: admin })).body).toHaveLength(1);
    // Its permission is the bulk re-run's: a user of the channel's txRerunAcl sees the same counts.
    expect(await preview(filters, rerunner)).toMatchObject({ matching: 3, latestAttempts: 2 });
    const anonymous = await t.inject('/bulkrerun/preview', { method: 'POST', json: { filters } });
    expect(anonymous.status).toBe(401);
    const viewer = await t.inject('/users', { method: 'POST', headers: admin, json: { email: 'victor@clinic.example', firstname: 'V', surname: 'B', groups: ['viewers'], password: 'user-password-123' } });
    expect(viewer.status, viewer.text).toBe(201);
    const forbidden = await t.inject('/bulkrerun/preview', { method: 'POST', headers: { authorization: basic('victor@clinic.example', 'user-password-123') }, json: { filters } });
    expect(forbidden.status).toBe(403);
    expect(errorOf(forbidden).code).toBe('FORBIDDEN');
    const bad = await t.inject('/bulkrerun/preview', { method: 'POST', headers: admin, json: { filters: { colour: 'red' } } });
    expect(bad.status).toBe(400);
  });

  it('without latestAttemptOnly re-runs an original and its earlier re-run alike (as OpenHIM); with it, only the latest attempt of each message', async () => {
    const filters = { status: 'Failed', 'request.path': '^/enc/[12]$' };
    const openhim = await bulk({ filters, pauseQueue: true });
    expect(openhim.status, openhim.text).toBe(200);
    expect(openhim.body).toMatchObject({ success: true, totalTransactions: 3 });
    expect((openhim.body as BulkRerunAnswer).warnings).toEqual(['1 of the transactions was already re-run; they are re-run again']);
    await removeTask((openhim.body as BulkRerunAnswer)._id);

    const before = { one: hits('/enc/1'), two: hits('/enc/2') };
    const latest = await bulk({ filters, latestAttemptOnly: true, batchSize: 2 });
    expect(latest.status, latest.text).toBe(200);
    const created = latest.body as BulkRerunAnswer;
    expect(created).toMatchObject({ success: true, totalTransactions: 2 });
    expect(created.warnings).toEqual([expect.stringContaining('1 matching transaction was left out: a later attempt of the same message exists') as string]);
    const done = await finished(created._id);
    // Encounter 1 went out once more (its re-run re-run), not twice; encounter 2 once.
    expect(hits('/enc/1')).toBe(before.one + 1);
    expect(hits('/enc/2')).toBe(before.two + 1);
    const rerun = done.transactions.map((i) => i.tid);
    expect(rerun).toContain(encounterOne.rerun);
    expect(rerun).not.toContain(encounterOne.original);
  });

  it('re-runs nothing of a message whose latest attempt succeeded, even when its earlier attempts match', async () => {
    down.add('/enc/3');
    const failed = await send('/enc/3', 'Encounter 3');
    down.delete('/enc/3');
    expect((await t.junction.transactions.get(await rerunOne(failed)))?.status).toBe('Successful');

    const filters = { status: 'Failed', 'request.path': '^/enc/3$' };
    expect(await preview(filters)).toMatchObject({ matching: 1, alreadyRerun: 1, reruns: 0, rerunnable: 1, latestAttempts: 0 });
    const refused = await bulk({ filters, latestAttemptOnly: true });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).code).toBe('TRANSACTION_NOT_RERUNNABLE');
    expect(errorOf(refused).message).toContain('a later attempt of the same message exists');
    // Without the option, as OpenHIM: it is re-run again.
    const openhim = await bulk({ filters, pauseQueue: true });
    expect(openhim.body).toMatchObject({ totalTransactions: 1 });
    await removeTask((openhim.body as BulkRerunAnswer)._id);
  });

  it('keeps the re-runs of a deleted original together as one message', async () => {
    down.add('/enc/4');
    const original = await send('/enc/4', 'Encounter 4');
    const firstRerun = await rerunOne(original);
    const secondRerun = await rerunOne(original);
    expect((await t.inject(`/transactions/${original}`, { method: 'DELETE', headers: admin })).status).toBe(200);

    const filters = { status: 'Failed', 'request.path': '^/enc/4$' };
    expect(await preview(filters)).toMatchObject({ matching: 2, reruns: 2, rerunnable: 2, latestAttempts: 1 });
    const latest = await bulk({ filters, latestAttemptOnly: true, pauseQueue: true });
    expect(latest.body).toMatchObject({ totalTransactions: 1 });
    const items = (await task((latest.body as BulkRerunAnswer)._id)).transactions.map((i) => i.tid);
    expect(items).toEqual([secondRerun]);
    expect(items).not.toContain(firstRerun);
    await removeTask((latest.body as BulkRerunAnswer)._id);
  });

  it('places transactions in no chain without reading them again', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await send(`/enc/plain/${i}`, `Plain ${i}`));
    const get = vi.spyOn(t.junction.transactions, 'get');
    try {
      expect(await preview({ 'request.path': '^/enc/plain/' })).toMatchObject({ matching: 30, rerunnable: 30, latestAttempts: 30, alreadyRerun: 0, reruns: 0 });
      expect(get).not.toHaveBeenCalled();
    } finally {
      get.mockRestore();
    }
    expect(ids).toHaveLength(30);
  });

  it('counts how many of a task’s re-runs succeeded and failed, and says a task whose re-runs all failed failed', async () => {
    for (const path of ['/enc/out/1', '/enc/out/2', '/enc/out/3']) down.add(path);
    const tids = [await send('/enc/out/1', 'A'), await send('/enc/out/2', 'B'), await send('/enc/out/3', 'C')];

    const allFailed = await t.inject('/tasks', { method: 'POST', headers: admin, json: { tids } });
    expect(allFailed.body).toMatchObject({ succeededTransactions: 0, failedTransactions: 0, outcome: 'pending' });
    const failedTask = (allFailed.body as TaskView)._id;
    const done = await finished(failedTask);
    expect(done).toMatchObject({ status: 'Completed', totalTransactions: 3, succeededTransactions: 0, failedTransactions: 3, outcome: 'failed' });
    const listed = (await t.inject('/tasks', { headers: admin })).body as TaskView[];
    expect(listed.find((x) => x._id === failedTask)).toMatchObject({ succeededTransactions: 0, failedTransactions: 3, outcome: 'failed' });
    expect(progress.filter((p) => p.taskId === failedTask).at(-1)).toMatchObject({ status: 'Completed', succeeded: 0, failed: 3, outcome: 'failed' });

    // One now succeeds, one still fails, one is refused by the receiver (400: Completed, neither success nor failure).
    down.delete('/enc/out/1');
    down.delete('/enc/out/3');
    refusing.add('/enc/out/3');
    const mixed = await t.inject('/tasks', { method: 'POST', headers: admin, json: { tids } });
    const mixedDone = await finished((mixed.body as TaskView)._id);
    expect(mixedDone).toMatchObject({ succeededTransactions: 1, failedTransactions: 1, outcome: 'mixed' });
    expect(mixedDone.transactions.map((i) => i.rerunStatus)).toEqual(['Successful', 'Failed', 'Completed']);

    // A transaction refused when its turn came (its channel disabled meanwhile) was not re-run: a failure.
    const paused = await t.inject('/tasks', { method: 'POST', headers: admin, json: { tids: [tids[0]], paused: true } });
    const pausedId = (paused.body as TaskView)._id;
    expect((await t.inject(`/channels/${channelID}`, { method: 'PUT', headers: admin, json: { status: 'disabled' } })).status).toBe(200);
    try {
      expect((await t.inject(`/tasks/${pausedId}`, { method: 'PUT', headers: admin, json: { status: 'Queued' } })).status).toBe(200);
      const refusedDone = await finished(pausedId);
      expect(refusedDone.transactions[0]).toMatchObject({ tstatus: 'Failed' });
      expect(refusedDone).toMatchObject({ succeededTransactions: 0, failedTransactions: 1, outcome: 'failed' });
    } finally {
      expect((await t.inject(`/channels/${channelID}`, { method: 'PUT', headers: admin, json: { status: 'enabled' } })).status).toBe(200);
    }

    // A task stored before the counts existed is counted when read.
    await t.junction.store.tasks.updateMany({ _id: failedTask }, { unset: ['succeededTransactions', 'failedTransactions'] });
    expect((await t.junction.store.tasks.findById(failedTask))?.failedTransactions).toBeUndefined();
    expect(await task(failedTask)).toMatchObject({ succeededTransactions: 0, failedTransactions: 3, outcome: 'failed' });
  });
});
