import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { basic, completedTransaction, ROOT_EMAIL, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { sleep, until } from '../helpers/wait.js';
import type { TaskProgressEvent } from '../../service/events/live.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';

interface Seen {
  method: string;
  url: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

interface TaskView {
  _id: string;
  status: string;
  batchSize: number;
  totalTransactions: number;
  remainingTransactions: number;
  user: string;
  warnings?: string[];
  transactions?: { tid: string; tstatus: string; rerunID?: string; rerunStatus?: string; error?: string }[];
}

const MAX_BODY = 4096;

describe('re-runs and tasks API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let rerunner: { authorization: string };
  let viewer: { authorization: string };
  let upstream: Upstream;
  const seen: Seen[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let delayMs = 0;
  const channels: Record<string, string> = {};
  const progress: TaskProgressEvent[] = [];

  const errorOf = (res: TestResponse) => (res.body as { error: { code: string; message: string; details: { path: string; message: string }[] } }).error;

  async function channel(name: string, extra: Record<string, unknown>): Promise<string> {
    const res = await t.inject('/channels', {
      method: 'POST',
      headers: admin,
      json: { name, authType: 'public', txViewAcl: ['viewers'], txRerunAcl: ['rerunners'], routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }], ...extra },
    });
    if (res.status !== 201) throw new Error(`channel: ${res.status} ${res.text}`);
    channels[name] = (res.body as { _id: string })._id;
    return channels[name];
  }

  async function user(email: string, groups: string[]): Promise<{ authorization: string }> {
    const password = 'user-password-123';
    const res = await t.inject('/users', { method: 'POST', headers: admin, json: { email, firstname: 'A', surname: 'B', groups, password } });
    if (res.status !== 201) throw new Error(res.text);
    return { authorization: basic(email, password) };
  }

  async function send(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<TransactionRecord> {
    const res = await fetch(`${t.httpUrl}${path}`, init);
    await res.arrayBuffer();
    return completedTransaction(t, res.headers.get('x-openhim-transactionid'));
  }

  async function task(id: string, query = ''): Promise<TaskView> {
    const res = await t.inject(`/tasks/${id}${query}`, { headers: admin });
    if (res.status !== 200) throw new Error(`task: ${res.status} ${res.text}`);
    return res.body as TaskView;
  }

  const finished = (id: string) => until(`task ${id} to complete`, async () => {
    const view = await task(id);
    return view.status === 'Completed' ? view : undefined;
  });

  const createTask = (json: unknown, headers = admin) => t.inject('/tasks', { method: 'POST', headers, json });

  beforeAll(async () => {
    t = await startJunction({ router: { maxBodyBytes: MAX_BODY } });
    admin = { authorization: await unlockRoot(t) };
    rerunner = await user('rita@clinic.example', ['rerunners']);
    viewer = await user('victor@clinic.example', ['viewers']);
    upstream = await httpUpstream((req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      void readBody(req).then(async (body) => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body, headers: req.headers });
        if (delayMs > 0) await sleep(delayMs);
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, url: req.url }));
      });
    });
    await channel('lab', { urlPattern: '^/lab/.*$' });
    await channel('private-lab', { urlPattern: '^/private/.*$', authType: 'private', allow: ['lab'] });
    await channel('unstored', { urlPattern: '^/unstored$', requestBody: false });
    await channel('closing', { urlPattern: '^/closing$' });
    await channel('bulk', { urlPattern: '^/bulk/.*$' });
    const client = await t.inject('/clients', { method: 'POST', headers: admin, json: { clientID: 'lab', name: 'Lab', roles: [], password: 'lab-client-pass-1' } });
    expect(client.status).toBe(201);
    t.junction.events.on('task.progress', (event) => progress.push(event));
  });

  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  it('re-runs one transaction through the current routes, keeping its client, and links parent and child', async () => {
    const original = await send('/private/orders?urgent=1', {
      method: 'POST',
      body: '{"order":"CBC"}',
      headers: { 'content-type': 'application/json', 'x-lab-ref': 'r-17', authorization: basic('lab', 'lab-client-pass-1') },
    });
    expect(original).toMatchObject({ status: 'Successful', canRerun: true });
    expect(original.clientID).toBeDefined();
    const hitsBefore = seen.length;

    const res = await createTask({ tids: [original._id] });
    expect(res.status).toBe(201);
    const created = res.body as TaskView;
    expect(created).toMatchObject({ totalTransactions: 1, batchSize: 1, user: ROOT_EMAIL, warnings: [] });
    const done = await finished(created._id);
    expect(done.remainingTransactions).toBe(0);
    const [item] = done.transactions ?? [];
    expect(item).toMatchObject({ tid: original._id, tstatus: 'Completed', rerunStatus: 'Successful' });

    const child = await completedTransaction(t, item?.rerunID ?? null);
    expect(child).toMatchObject({
      parentID: original._id,
      clientID: original.clientID,
      channelID: channels['private-lab'],
      status: 'Successful',
      request: { method: 'POST', path: '/private/orders', querystring: 'urgent=1' },
    });
    expect(child._id).not.toBe(original._id);
    expect(await t.junction.bodies.readText(child.request.body ?? { path: '' })).toBe('{"order":"CBC"}');
    const parent = await t.junction.transactions.get(original._id);
    expect(parent).toMatchObject({ wasRerun: true, childIDs: [child._id] });

    expect(seen.length).toBe(hitsBefore + 1);
    const replayed = seen.at(-1);
    expect(replayed).toMatchObject({ method: 'POST', url: '/private/orders?urgent=1', body: '{"order":"CBC"}' });
    expect(replayed?.headers['x-lab-ref']).toBe('r-17');
    expect(replayed?.headers['content-type']).toBe('application/json');
    expect(replayed?.headers['x-openhim-transactionid']).toBe(child._id);
    // The client's credentials were never stored, so none are replayed.
    expect(replayed?.headers.authorization).toBeUndefined();
  });

  it('re-runs an already re-run transaction again, with a warning in the answer', async () => {
    const original = await send('/lab/results', { method: 'POST', body: 'HL7-ish', headers: { 'content-type': 'text/plain' } });
    const first = await createTask({ tids: [original._id] });
    expect((first.body as TaskView).warnings).toEqual([]);
    await finished((first.body as TaskView)._id);

    const second = await createTask({ tids: [original._id] });
    expect(second.status).toBe(201);
    const warnings = (second.body as TaskView).warnings ?? [];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`Transaction ${original._id} was already re-run`);
    await finished((second.body as TaskView)._id);
    const parent = await t.junction.transactions.get(original._id);
    expect(parent?.childIDs).toHaveLength(2);
    expect(seen.filter((s) => s.url === '/lab/results')).toHaveLength(3);
  });

  it('refuses to re-run a POST whose body was not stored, or was truncated, and says why', async () => {
    const unstored = await send('/unstored', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(unstored.canRerun).toBe(false);
    const res = await createTask({ tids: [unstored._id] });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'TRANSACTION_NOT_RERUNNABLE', details: [{ path: 'body.tids.0' }] });
    expect(errorOf(res).message).toContain(`Transaction ${unstored._id} cannot be re-run`);
    expect(errorOf(res).message).toContain('request body was not stored');

    const truncated = await send('/lab/big', { method: 'PUT', body: 'x'.repeat(MAX_BODY + 10) });
    const big = await createTask({ tids: [truncated._id] });
    expect(big.status).toBe(400);
    expect(errorOf(big).message).toContain('truncated');
    expect(errorOf(big).message).toContain(`${MAX_BODY} of ${MAX_BODY + 10} bytes`);

    // The whole task is refused: nothing was created or sent for the re-runnable transaction beside them.
    const fine = await send('/lab/fine');
    const hits = seen.length;
    const mixed = await createTask({ tids: [fine._id, unstored._id] });
    expect(mixed.status).toBe(400);
    expect(errorOf(mixed).details.map((d) => d.path)).toEqual(['body.tids.1']);
    await sleep(100);
    expect(seen.length).toBe(hits);
  });

  it('lets only admins and groups in the channel txRerunAcl re-run', async () => {
    const original = await send('/lab/acl');
    const refused = await createTask({ tids: [original._id] }, viewer);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toContain('txRerunAcl');
    // An unknown id gets the same answer, so a non-admin cannot probe for ids.
    const unknown = await createTask({ tids: ['0123456789abcdef01234567'] }, viewer);
    expect(unknown.status).toBe(403);
    expect((await createTask({ tids: ['0123456789abcdef01234567'] })).status).toBe(404);

    const allowed = await createTask({ tids: [original._id] }, rerunner);
    expect(allowed.status).toBe(201);
    await finished((allowed.body as TaskView)._id);
    // Users see their own tasks, not other users'.
    const mine = await t.inject('/tasks', { headers: rerunner });
    expect((mine.body as TaskView[]).map((x) => x.user)).toEqual(['rita@clinic.example']);
    const others = await t.inject(`/tasks/${(allowed.body as TaskView)._id}`, { headers: viewer });
    expect(others.status).toBe(403);
  });

  it('refuses re-runs of disabled and deleted channels', async () => {
    const original = await send('/closing');
    const disabled = await t.inject(`/channels/${channels.closing}`, { method: 'PUT', headers: admin, json: { status: 'disabled' } });
    expect(disabled.status).toBe(200);
    const res = await createTask({ tids: [original._id] });
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toContain('is disabled');

    await t.inject(`/channels/${channels.closing}`, { method: 'PUT', headers: admin, json: { status: 'enabled' } });
    expect((await t.inject(`/channels/${channels.closing}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    const deleted = await createTask({ tids: [original._id] });
    expect(deleted.status).toBe(400);
    expect(errorOf(deleted).message).toContain('deleted');
  });

  it('validates task bodies, queries and status changes', async () => {
    const paths = async (res: Promise<TestResponse>) => {
      const answer = await res;
      expect(answer.status, answer.text).toBe(400);
      return errorOf(answer).details.map((d) => d.path);
    };
    expect(await paths(createTask({ tids: [] }))).toEqual(['body.tids']);
    expect(await paths(createTask({ tids: ['not-an-id'] }))).toEqual(['body.tids.0']);
    expect(await paths(createTask({ tids: ['0123456789abcdef01234567'], batchSize: 0 }))).toEqual(['body.batchSize']);
    expect(await paths(createTask({ tids: ['0123456789abcdef01234567'], priority: 1 }))).toEqual(['body.priority']);
    expect(await paths(t.inject('/tasks?filters=%7B%22status%22%3A%22Done%22%7D', { headers: admin }))).toEqual(['querystring.filters.status']);
    expect(await paths(t.inject('/bulkrerun', { method: 'POST', headers: admin, json: { filters: { colour: 'red' } } }))).toEqual(['body.filters.colour']);
    expect(await paths(t.inject('/bulkrerun', { method: 'POST', headers: admin, json: { filters: '{"status":"Great"}' } }))).toEqual(['body.filters.status']);

    const original = await send('/lab/validate');
    const created = (await createTask({ tids: [original._id], paused: true })).body as TaskView;
    expect(created.status).toBe('Paused');
    expect(await paths(t.inject(`/tasks/${created._id}`, { method: 'PUT', headers: admin, json: {} }))).toEqual(['body']);
    const completedByUser = await t.inject(`/tasks/${created._id}`, { method: 'PUT', headers: admin, json: { status: 'Completed' } });
    expect(completedByUser.status).toBe(409);
    expect(errorOf(completedByUser).message).toContain('set by Junction');
    const cancelled = await t.inject(`/tasks/${created._id}`, { method: 'PUT', headers: admin, json: { status: 'Cancelled' } });
    expect(cancelled.body).toMatchObject({ status: 'Cancelled' });
    const resumed = await t.inject(`/tasks/${created._id}`, { method: 'PUT', headers: admin, json: { status: 'Queued' } });
    expect(resumed.status).toBe(409);
    expect((await t.inject(`/tasks/${created._id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    expect((await t.inject(`/tasks/${created._id}`, { headers: admin })).status).toBe(404);
  });

  it('bulk re-runs 200 transactions in batches of 10: created paused, resumed, paused, resumed, completed', async () => {
    const originals: TransactionRecord[] = [];
    for (let i = 0; i < 200; i += 20) {
      originals.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => send(`/bulk/${i + j}`)))));
    }
    expect(seen.filter((s) => s.url.startsWith('/bulk/'))).toHaveLength(200);
    delayMs = 20;
    maxInFlight = 0;

    const res = await t.inject('/bulkrerun', { method: 'POST', headers: admin, json: { filters: { channelID: channels.bulk }, batchSize: 10, pauseQueue: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'Tasks created for bulk rerun of transactions' });
    const created = res.body as TaskView;
    expect(created).toMatchObject({ status: 'Paused', batchSize: 10, totalTransactions: 200, remainingTransactions: 200, warnings: [] });
    await sleep(300);
    expect(seen.filter((s) => s.url.startsWith('/bulk/'))).toHaveLength(200);

    const mine = () => progress.filter((p) => p.taskId === created._id);
    expect((await t.inject(`/tasks/${created._id}`, { method: 'PUT', headers: admin, json: { status: 'Queued' } })).status).toBe(200);
    await until('50 re-runs', async () => (mine().some((p) => p.processed >= 50) ? true : undefined));
    // Being picked up is published too, before any batch is done, so a task list shows Processing at once.
    expect(mine().find((p) => p.status === 'Processing')).toMatchObject({ processed: 0, remaining: 200 });
    const paused = await t.inject(`/tasks/${created._id}`, { method: 'PUT', headers: admin, json: { status: 'Paused' } });
    expect(paused.body).toMatchObject({ status: 'Paused' });
    // The batch in flight finishes; then nothing more is sent while the task is paused.
    await sleep(200);
    const atPause = seen.length;
    const remaining = (await task(created._id)).remainingTransactions;
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThan(200);
    expect(remaining % 10).toBe(0);
    await sleep(300);
    expect(seen.length).toBe(atPause);

    expect((await t.inject(`/tasks/${created._id}`, { method: 'PUT', headers: admin, json: { status: 'Queued' } })).status).toBe(200);
    const done = await finished(created._id);
    expect(done.remainingTransactions).toBe(0);
    delayMs = 0;
    expect(maxInFlight).toBeLessThanOrEqual(10);
    expect(maxInFlight).toBeGreaterThan(1);

    // Every original was re-run exactly once, oldest first, and the task lists each outcome.
    for (const original of originals) expect(seen.filter((s) => s.url === original.request.path), original.request.path).toHaveLength(2);
    // Originals were sent 20 at a time, so the first and last 20 are the oldest and newest.
    const reruns = seen.filter((s) => s.url.startsWith('/bulk/')).slice(200).map((s) => Number(s.url.slice(6)));
    expect(reruns.slice(0, 10).every((n) => n < 20)).toBe(true);
    expect(reruns.slice(-10).every((n) => n >= 180)).toBe(true);
    const all = await task(created._id, '?filterLimit=1000');
    expect(all.transactions).toHaveLength(200);
    expect(all.transactions?.every((i) => i.tstatus === 'Completed' && i.rerunStatus === 'Successful' && i.rerunID !== undefined)).toBe(true);
    const failedOnly = await task(created._id, `?filters=${encodeURIComponent('{"tstatus":"Failed"}')}`);
    expect(failedOnly.transactions).toEqual([]);

    // Progress went out on the live feed, ending with the completed count.
    const events = mine();
    expect(events.at(-1)).toMatchObject({ status: 'Completed', totalTransactions: 200, processed: 200, remaining: 0 });
    expect(events.some((e) => e.status === 'Paused' && e.remaining > 0)).toBe(true);
    const processed = events.map((e) => e.processed);
    expect(processed).toEqual([...processed].sort((a, b) => a - b));

    const listed = await t.inject(`/tasks?filters=${encodeURIComponent('{"status":"Completed"}')}&filterLimit=1`, { headers: admin });
    expect((listed.body as TaskView[]).map((x) => x._id)).toEqual([created._id]);
  });

  it('runs tasks.concurrency (1 by default) tasks at a time, oldest first', async () => {
    const originals = [await send('/lab/one'), await send('/lab/two'), await send('/lab/three')];
    delayMs = 150;
    const first = (await createTask({ tids: originals.slice(0, 2).map((o) => o._id) })).body as TaskView;
    const second = (await createTask({ tids: [originals[2]?._id] })).body as TaskView;
    await until('the first task to start', async () => ((await task(first._id)).status === 'Processing' ? true : undefined));
    expect((await task(second._id)).status).toBe('Queued');
    await finished(first._id);
    await finished(second._id);
    delayMs = 0;
    const order = seen.filter((x) => ['/lab/one', '/lab/two', '/lab/three'].includes(x.url)).slice(3).map((x) => x.url);
    expect(order).toEqual(['/lab/one', '/lab/two', '/lab/three']);
  });

  it('leaves out of a bulk re-run what cannot be re-run, and says so', async () => {
    const res = await t.inject('/bulkrerun', { method: 'POST', headers: admin, json: { filters: { channelID: channels.unstored } } });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'TRANSACTION_NOT_RERUNNABLE' });
    expect(errorOf(res).message).toContain('1 matching transaction was left out');

    const viewerBulk = await t.inject('/bulkrerun', { method: 'POST', headers: viewer, json: { filters: {} } });
    expect(viewerBulk.status).toBe(403);
    const rerunnerBulk = await t.inject('/bulkrerun', { method: 'POST', headers: rerunner, json: { filters: { 'request.path': '^/lab/acl$', wasRerun: true }, pauseQueue: true } });
    expect(rerunnerBulk.status).toBe(200);
    expect(rerunnerBulk.body).toMatchObject({ totalTransactions: 1 });
    expect((rerunnerBulk.body as TaskView).warnings?.[0]).toContain('already re-run');
  });
});
