/**
 * OpenHIM compatibility: ids look like OpenHIM's (24 lower-case hex digits, MongoDB ObjectId layout) for every
 * resource the API creates, and records written by the previous version, whose NeDB ids are 16 characters, are still
 * found, changed and deleted by those ids, with the references to them (sessions) still valid.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { startCompat } from './openhim-caller.js';
import type { CompatJunction } from './openhim-caller.js';
import { basic, completedTransaction, NEW_ROOT_PASSWORD, ROOT_EMAIL, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** An id's first 8 hex digits are its creation second. */
function secondsOf(id: string): number {
  return Number.parseInt(id.slice(0, 8), 16);
}

describe('OpenHIM compatibility: ids of new records', () => {
  let c: CompatJunction;
  const started = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    c = await startCompat();
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('channels, clients, users, mediators, tasks and transactions get 24 hex digits, time first', async () => {
    const channel = await c.root.post('/channels', { name: 'Ids', urlPattern: '^/ids$', authType: 'public', routes: [{ name: 'nowhere', host: '127.0.0.1', port: 9, primary: true }] });
    const client = await c.root.post('/clients', { clientID: 'ids-client', name: 'Ids client', roles: ['ids'] });
    const user = await c.root.post('/users', { email: 'ids@example.org', firstname: 'I', surname: 'D', groups: ['ids'], password: 'ids-password-123' });
    const mediator = await c.root.post('/mediators', { urn: 'urn:mediator:ids', version: '1.0.0', name: 'Ids', endpoints: [{ name: 'e', host: 'localhost', port: 1 }] });
    for (const res of [channel, client, user, mediator]) expect(res.status, res.text).toBe(201);
    const response = await fetch(`${c.t.httpUrl}/ids`);
    await response.arrayBuffer();
    const transaction = await completedTransaction(c.t, response.headers.get('x-openhim-transactionid'));
    const task = await c.root.post('/tasks', { tids: [transaction._id] });
    expect(task.status, task.text).toBe(201);

    const ids: Record<string, string> = {
      channel: (channel.body as { _id: string })._id,
      client: (client.body as { _id: string })._id,
      user: (user.body as { _id: string })._id,
      mediator: (mediator.body as { _id: string })._id,
      transaction: transaction._id,
      task: (task.body as { _id: string })._id,
    };
    for (const [what, id] of Object.entries(ids)) {
      expect(id, what).toMatch(OBJECT_ID);
      expect(secondsOf(id), what).toBeGreaterThanOrEqual(started);
      expect(secondsOf(id), what).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    }
    // The super user seeded at the first start has one too.
    const root = (await c.root.get(`/users/${ROOT_EMAIL}`)).body as { _id: string };
    expect(root._id).toMatch(OBJECT_ID);
    // And the ids work where OpenHIM's scripts use them.
    expect((await c.root.get(`/channels/${ids.channel}`)).status).toBe(200);
    expect((await c.root.get(`/clients/${ids.client}`)).status).toBe(200);
    expect((await c.root.get(`/tasks/${ids.task}`)).status).toBe(200);
  });
});

/** The previous version's NeDB ids: 16 letters and digits. */
const OLD = { channel: 'Ab3dEf6hIj9kLm2n', client: 'Zy8xWv5uTs2rQp1o', user: 'Mn4bVc7xZa1sDf3g' };

/** Rewrites the ids in `<collection>.db` as the previous version wrote them, and every copy of them in the other files. */
async function writtenByPreviousVersion(dataDir: string, renames: Record<string, string>): Promise<void> {
  for (const file of ['channels.db', 'clients.db', 'users.db', 'sessions.db']) {
    let text = await readFile(join(dataDir, file), 'utf8');
    for (const [from, to] of Object.entries(renames)) text = text.split(from).join(to);
    await writeFile(join(dataDir, file), text);
  }
}

describe('OpenHIM compatibility: ids written by the previous version', () => {
  let t: TestJunction;
  let root: string;

  beforeAll(async () => {
    const dataDir = await tempDir();
    const first = await startJunction({}, { dataDir });
    const auth = await unlockRoot(first);
    const post = async (path: string, json: unknown) => {
      const res = await first.request(path, { method: 'POST', headers: { authorization: auth }, json });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
      return (res.body as { _id: string })._id;
    };
    const channel = await post('/channels', { name: 'Old channel', urlPattern: '^/old$', routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] });
    const client = await post('/clients', { clientID: 'old-client', name: 'Old client', roles: ['old'] });
    const user = await post('/users', { email: 'old@example.org', firstname: 'O', surname: 'Ld', groups: ['old'], password: 'old-password-123' });
    await first.stop();
    await writtenByPreviousVersion(dataDir, { [channel]: OLD.channel, [client]: OLD.client, [user]: OLD.user });
    t = await startJunction({}, { dataDir });
    root = basic(ROOT_EMAIL, NEW_ROOT_PASSWORD);
  });
  afterAll(async () => {
    await t.destroy();
  });

  const as = (authorization: string) => ({ headers: { authorization } });

  it('a channel keeps its old id: GET, PUT of what came back, DELETE', async () => {
    const got = await t.request(`/channels/${OLD.channel}`, as(root));
    expect(got.status).toBe(200);
    expect((got.body as { _id: string; name: string })).toMatchObject({ _id: OLD.channel, name: 'Old channel' });
    const put = await t.request(`/channels/${OLD.channel}`, { method: 'PUT', ...as(root), json: { ...(got.body as object), description: 'still here' } });
    expect(put.status, put.text).toBe(200);
    expect((await t.request(`/channels/${OLD.channel}`, as(root))).body).toMatchObject({ _id: OLD.channel, description: 'still here' });
    expect((await t.request(`/channels/${OLD.channel}`, { method: 'DELETE', ...as(root) })).status).toBe(200);
    expect((await t.request(`/channels/${OLD.channel}`, as(root))).status).toBe(404);
  });

  it('a client keeps its old id: GET, PUT, DELETE', async () => {
    const got = await t.request(`/clients/${OLD.client}`, as(root));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ _id: OLD.client, clientID: 'old-client' });
    expect((await t.request(`/clients/${OLD.client}`, { method: 'PUT', ...as(root), json: { name: 'Renamed client' } })).status).toBe(200);
    expect((await t.request(`/clients/${OLD.client}`, as(root))).body).toMatchObject({ _id: OLD.client, name: 'Renamed client' });
    expect((await t.request(`/clients/${OLD.client}`, { method: 'DELETE', ...as(root) })).status).toBe(200);
    expect((await t.request(`/clients/${OLD.client}`, as(root))).status).toBe(404);
  });

  it('a user keeps its old id, signs in, and the session that refers to that id finds it', async () => {
    const login = await t.request('/authenticate/local', { method: 'POST', json: { username: 'old@example.org', password: 'old-password-123' } });
    expect(login.status).toBe(200);
    expect((login.body as { user: { _id: string } }).user._id).toBe(OLD.user);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const me = await t.request('/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect((me.body as { user: { _id: string; email: string } }).user).toMatchObject({ _id: OLD.user, email: 'old@example.org' });
    const renamed = await t.request('/users/old@example.org', { method: 'PUT', ...as(root), json: { firstname: 'Still' } });
    expect(renamed.status).toBe(200);
    expect((renamed.body as { _id: string })._id).toBe(OLD.user);
  });

  it('new records next to the old ones get the new shape', async () => {
    const res = await t.request('/channels', { method: 'POST', ...as(root), json: { name: 'New channel', urlPattern: '^/new$', routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] } });
    expect(res.status).toBe(201);
    expect((res.body as { _id: string })._id).toMatch(OBJECT_ID);
  });
});
