/**
 * OpenHIM compatibility: re-run tasks as OpenHIM's console (controllers/tasks.js, taskDetails.js,
 * transactionsRerunModal.js) and integration tests (tasksAPITests.js) call them: `POST /tasks {tids, batchSize,
 * paused}`, the task list and one task with `filterPage`/`filterLimit`/`filters` (also `filterLimit=0`), pausing and
 * resuming with `PUT /tasks/:id {_id, status}`, the document round trip, `POST /bulkrerun` with the console's body,
 * and `DELETE`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { completedTransaction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { sleep } from '../helpers/wait.js';
import { ROOT_EMAIL, startCompat } from './openhim-caller.js';
import type { Caller, CompatJunction, TestResponse } from './openhim-caller.js';
import type { TaskDetail, TaskView } from '../../service/contracts/tasks.js';

/** A task as the list and the detail answer it (the list has no `transactions`). */
type Task = TaskView & Partial<Pick<TaskDetail, 'transactions' | 'totalFilteredTransactions'>>;

describe('OpenHIM compatibility: re-run tasks', () => {
  let c: CompatJunction;
  let upstream: Upstream;
  let other: Caller;
  let channelId = '';
  const tids: string[] = [];
  /** Milliseconds the upstream waits before answering, so a task is still running when it is paused. */
  let delayMs = 0;

  const task = (res: TestResponse): Task => {
    expect(res.status, res.text).toBeLessThan(300);
    return res.body as Task;
  };
  const listQuery = (filters: Record<string, unknown>, limit = 10) =>
    `/tasks?${new URLSearchParams({ filterPage: '0', filterLimit: String(limit), filters: JSON.stringify(filters) }).toString()}`;

  beforeAll(async () => {
    c = await startCompat();
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then(async () => {
        if (delayMs > 0) await sleep(delayMs);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    const channel = await c.root.post('/channels', {
      name: 'Rerun',
      urlPattern: '^/rerun/.*$',
      authType: 'public',
      txRerunAcl: ['clerks'],
      txViewAcl: ['clerks'],
      routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }],
    });
    expect(channel.status, channel.text).toBe(201);
    channelId = (channel.body as { _id: string })._id;
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${c.t.httpUrl}/rerun/${i}`);
      await res.arrayBuffer();
      tids.push((await completedTransaction(c.t, res.headers.get('x-openhim-transactionid')))._id);
    }
    other = await c.user('clara@clinic.example', ['clerks']);
  });

  afterAll(async () => {
    await c.destroy();
    await upstream.close();
  });

  it('POST /tasks with the console’s body answers 201; the list and one task take the console’s filters', async () => {
    const created = task(await c.root.post('/tasks', { tids: tids.slice(0, 2), batchSize: 1, paused: true }));
    expect(created).toMatchObject({ status: 'Paused', batchSize: 1, totalTransactions: 2, remainingTransactions: 2, user: ROOT_EMAIL });
    expect(created._id).toMatch(/^[0-9a-f]{24}$/);

    // controllers/tasks.js: status, user and created (a JSON text range) in filters.
    const range = JSON.stringify({ $gte: new Date(Date.now() - 60_000).toISOString(), $lte: new Date(Date.now() + 60_000).toISOString() });
    const listed = await c.root.get(listQuery({ status: 'Paused', user: ROOT_EMAIL, created: range }));
    expect(listed.status).toBe(200);
    expect((listed.body as Task[]).map((t) => t._id)).toContain(created._id);
    expect((await c.root.get(listQuery({ status: 'Completed' }))).body).toEqual([]);
    expect(((await c.root.get(listQuery({}, 0))).body as Task[]).map((t) => t._id)).toContain(created._id);
    expect((await c.root.get('/tasks?filterLimit=0')).status).toBe(200);

    // controllers/taskDetails.js: one task with a page of its transactions, filtered as the console filters them.
    const detail = task(await c.root.get(`/tasks/${created._id}?filterPage=0&filterLimit=1&filters=${encodeURIComponent(JSON.stringify({ tstatus: 'Queued', hasErrors: 'no' }))}`));
    expect(detail.transactions).toEqual([{ tid: tids[0], tstatus: 'Queued' }]);
    expect(detail.totalFilteredTransactions).toBe(2);
    const all = task(await c.root.get(`/tasks/${created._id}?filterLimit=0&filters=%7B%7D`));
    expect(all.transactions?.map((t) => t.tid)).toEqual(tids.slice(0, 2));
    expect(task(await c.root.get(`/tasks/${created._id}?filterPage=0&filterLimit=10&filters=${encodeURIComponent('{"hasErrors":"yes"}')}`)).totalFilteredTransactions).toBe(0);
    expect((await c.root.get(`/tasks/${created._id}?filters=${encodeURIComponent('{"colour":"red"}')}`)).status).toBe(400);
  });

  it('PUT /tasks/:id {_id, status} resumes (Queued) and pauses (Paused) a task, as the console sends it', async () => {
    delayMs = 300;
    try {
      const created = task(await c.root.post('/tasks', { tids, batchSize: 1, paused: true }));
      const resumed = await c.root.put(`/tasks/${created._id}`, { _id: created._id, status: 'Queued' });
      expect(resumed.status, resumed.text).toBe(200);
      const paused = await c.root.put(`/tasks/${created._id}`, { _id: created._id, status: 'Paused' });
      expect(paused.status, paused.text).toBe(200);
      expect(task(await c.root.get(`/tasks/${created._id}`)).status).toBe('Paused');
      expect((await c.root.put(`/tasks/${created._id}`, { _id: created._id, status: 'Cancelled' })).status).toBe(200);
    } finally {
      delayMs = 0;
    }
  });

  it('a task sent back whole as fetched is accepted and changes nothing; a truly unknown field is still 400', async () => {
    const created = task(await c.root.post('/tasks', { tids: [tids[0]], paused: true }));
    const fetched = await c.root.get(`/tasks/${created._id}`);
    expect(fetched.status).toBe(200);
    const put = await c.root.put(`/tasks/${created._id}`, fetched.body);
    expect(put.status, put.text).toBe(200);
    expect((await c.root.get(`/tasks/${created._id}`)).body).toEqual(fetched.body);
    // From the list, too, and with null for what is not set.
    const fromList = ((await c.root.get(listQuery({ status: 'Paused' }, 0))).body as Task[]).find((t) => t._id === created._id);
    expect((await c.root.put(`/tasks/${created._id}`, { ...fromList, completedDate: null })).status).toBe(200);
    const unknown = await c.root.put(`/tasks/${created._id}`, { ...(fetched.body as Task), colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('colour');
    expect((await c.root.put(`/tasks/${created._id}`, { status: 'Done' })).status).toBe(400);
  });

  it('POST /bulkrerun with the console’s body answers 200 {success, message}, as OpenHIM', async () => {
    const res = await c.root.post('/bulkrerun', { filters: { channelID: channelId, 'response.status': '2xx' }, batchSize: 2, pauseQueue: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Tasks created for bulk rerun of transactions', status: 'Paused', batchSize: 2, totalTransactions: 4 });
    // Filters as JSON text too, where OpenHIM's console sends a date range as text inside them.
    const range = JSON.stringify({ $gte: new Date(Date.now() - 3_600_000).toISOString() });
    const text = await c.root.post('/bulkrerun', { filters: JSON.stringify({ channelID: channelId, 'request.timestamp': range }), pauseQueue: true });
    expect(text.status, text.text).toBe(200);
    expect((await c.root.post('/bulkrerun', { filters: { 'request.colour': 'red' } })).status).toBe(400);
  });

  it('users see and change their own tasks; DELETE removes a task', async () => {
    const mine = task(await other.post('/tasks', { tids: [tids[1]], paused: true }));
    expect(((await other.get(listQuery({}))).body as Task[]).map((t) => t._id)).toEqual([mine._id]);
    const rootTask = task(await c.root.post('/tasks', { tids: [tids[2]], paused: true }));
    expect((await other.get(`/tasks/${rootTask._id}`)).status).toBe(403);
    expect((await other.put(`/tasks/${rootTask._id}`, { _id: rootTask._id, status: 'Queued' })).status).toBe(403);
    expect((await other.delete(`/tasks/${mine._id}`)).status).toBe(200);
    expect((await other.get(`/tasks/${mine._id}`)).status).toBe(403);
    expect((await c.root.get(`/tasks/${mine._id}`)).status).toBe(404);
    expect((await c.caller({}).get('/tasks')).status).toBe(401);
  });
});
