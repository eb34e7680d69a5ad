import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { WebSocket } from 'ws';
import type { LiveFrame } from '../../service/contracts/live-feed.js';
import { basic, completedTransaction, DEFAULT_ROOT_PASSWORD, NEW_ROOT_PASSWORD, ROOT_EMAIL, sessionCookie, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

/** A connected live feed client that keeps every frame it receives. */
interface Feed {
  ws: WebSocket;
  frames: LiveFrame[];
  next(match: (f: LiveFrame) => boolean, from?: number): Promise<LiveFrame>;
  closed: Promise<{ code: number; reason: string }>;
}

function wsUrl(t: TestJunction, path = '/ws'): string {
  return `${t.url.replace(/^https/, 'wss')}${path}`;
}

/** Opens a socket; resolves with the feed once the hello frame arrived, or with the HTTP status of a refusal. */
function connect(t: TestJunction, headers: Record<string, string>, path = '/ws'): Promise<Feed | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(t, path), { ca: t.certificate, headers });
    const frames: LiveFrame[] = [];
    const waiters = new Set<() => void>();
    const closed = new Promise<{ code: number; reason: string }>((done) => ws.once('close', (code, reason) => done({ code, reason: reason.toString() })));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', reject);
    ws.on('message', (data: Buffer) => {
      frames.push(JSON.parse(data.toString('utf8')) as LiveFrame);
      for (const wake of waiters) wake();
    });
    const feed: Feed = {
      ws,
      frames,
      closed,
      next(match, from = 0) {
        return new Promise((done, fail) => {
          const check = () => {
            const found = frames.slice(from).find(match);
            if (found === undefined) return;
            waiters.delete(check);
            clearTimeout(timer);
            done(found);
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            fail(new Error(`frame not received; got ${JSON.stringify(frames)}`));
          }, 5000);
          waiters.add(check);
          check();
        });
      },
    };
    void feed.next((f) => f.type === 'hello').then(() => resolve(feed), reject);
  });
}

async function open(t: TestJunction, headers: Record<string, string>): Promise<Feed> {
  const result = await connect(t, headers);
  if (!('ws' in result)) throw new Error(`refused: ${result.status} ${result.body}`);
  return result;
}

describe('the live feed websocket', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };
  let upstream: Upstream;
  const channels: Record<string, string> = {};
  const feeds: Feed[] = [];

  const track = (feed: Feed) => {
    feeds.push(feed);
    return feed;
  };

  beforeAll(async () => {
    t = await startJunction({}, { liveFeed: { pingIntervalMs: 200 } });
    admin = { authorization: await unlockRoot(t) };
    const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
    expect((await t.request('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
    nurse = { authorization: basic(user.email, user.password) };
    upstream = await httpUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    for (const [name, acl] of [['ward', ['nurses']], ['billing', ['accounts']]] as const) {
      const res = await t.request('/channels', {
        method: 'POST',
        headers: admin,
        json: { name, urlPattern: `^/${name}$`, authType: 'public', txViewAcl: acl, routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }] },
      });
      channels[name] = (res.body as { _id: string })._id;
    }
  });
  afterAll(async () => {
    for (const feed of feeds) feed.ws.terminate();
    await upstream.close();
    await t.destroy();
  });

  it('refuses connections without valid credentials, from other origins, and on other paths', async () => {
    expect(await connect(t, {})).toMatchObject({ status: 401 });
    const refused = await connect(t, { authorization: basic(ROOT_EMAIL, 'wrong-password-1') });
    expect(refused).toMatchObject({ status: 401 });
    expect(JSON.parse((refused as { body: string }).body)).toMatchObject({ error: { code: 'INVALID_CREDENTIALS' } });
    expect(await connect(t, { cookie: 'junction.sid=made-up-session' })).toMatchObject({ status: 401 });
    expect(await connect(t, { ...admin, origin: 'https://evil.example' })).toMatchObject({ status: 403 });
    expect(await connect(t, admin, '/other')).toMatchObject({ status: 404 });
  });

  it('accepts the console session cookie and HTTP Basic, greeting with the events the user gets', async () => {
    const login = await t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    const bySession = track(await open(t, { cookie: sessionCookie(login), origin: t.url }));
    expect(bySession.frames[0]).toEqual({ type: 'hello', data: { user: ROOT_EMAIL, events: ['transaction.started', 'transaction.completed', 'mediator.heartbeat', 'task.progress'] } });
    const byBasic = track(await open(t, nurse));
    expect(byBasic.frames[0]).toMatchObject({ type: 'hello', data: { user: 'nina@clinic.example', events: ['transaction.started', 'transaction.completed', 'mediator.heartbeat'] } });
  });

  it('pushes transactions only for channels the user may view', async () => {
    const adminFeed = track(await open(t, admin));
    const nurseFeed = track(await open(t, nurse));
    const hidden = await fetch(`${t.httpUrl}/billing`);
    await hidden.text();
    await adminFeed.next((f) => f.type === 'transaction.completed' && f.data.channelID === channels.billing);
    const shown = await fetch(`${t.httpUrl}/ward`);
    await shown.text();
    const id = shown.headers.get('x-openhim-transactionid');
    await completedTransaction(t, id);
    const completed = await nurseFeed.next((f) => f.type === 'transaction.completed');
    expect(completed).toEqual({ type: 'transaction.completed', data: { transactionId: id, channelID: channels.ward, status: 'Successful', method: 'GET', path: '/ward', responseStatus: 200 } });
    // Frames keep the order of events, so the billing transaction (earlier) would have come first.
    const nurseTypes = nurseFeed.frames.filter((f) => f.type.startsWith('transaction.')).map((f) => [f.type, (f.data as { channelID: string }).channelID]);
    expect(nurseTypes).toEqual([
      ['transaction.started', channels.ward],
      ['transaction.completed', channels.ward],
    ]);
    expect(adminFeed.frames.filter((f) => f.type === 'transaction.started').map((f) => (f.data as { channelID: string }).channelID)).toEqual([channels.billing, channels.ward]);
  });

  it('pushes mediator heartbeats, and task progress to admins only', async () => {
    const adminFeed = track(await open(t, admin));
    const nurseFeed = track(await open(t, nurse));
    t.junction.events.emit('task.progress', { taskId: 'task-1', status: 'Processing', totalTransactions: 4, processed: 1, remaining: 3 });
    const registered = await t.request('/mediators', {
      method: 'POST',
      headers: admin,
      json: { urn: 'urn:mediator:feed', version: '1.0.0', name: 'Feed mediator', endpoints: [{ name: 'e', host: '127.0.0.1', port: 9999 }] },
    });
    expect(registered.status).toBe(201);
    expect((await t.request('/mediators/urn:mediator:feed/heartbeat', { method: 'POST', headers: admin, json: { uptime: 42 } })).status).toBe(200);
    const beat = await nurseFeed.next((f) => f.type === 'mediator.heartbeat');
    expect(beat).toMatchObject({ type: 'mediator.heartbeat', data: { urn: 'urn:mediator:feed', name: 'Feed mediator', uptime: 42 } });
    expect(new Date((beat.data as { at: string }).at).getTime()).toBeGreaterThan(Date.now() - 10_000);
    await adminFeed.next((f) => f.type === 'mediator.heartbeat');
    expect(adminFeed.frames.find((f) => f.type === 'task.progress')).toEqual({ type: 'task.progress', data: { taskId: 'task-1', status: 'Processing', totalTransactions: 4, processed: 1, remaining: 3 } });
    expect(nurseFeed.frames.some((f) => f.type === 'task.progress')).toBe(false);
  });

  it('answers pings, reports bad client frames without dropping the feed, and closes on oversized ones', async () => {
    const feed = track(await open(t, nurse));
    const from = feed.frames.length;
    feed.ws.send('not json');
    expect(await feed.next((f) => f.type === 'error', from)).toMatchObject({ data: { code: 'BAD_FRAME' } });
    feed.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    feed.ws.send(JSON.stringify({ type: 'subscribe', to: 'everything' }));
    feed.ws.send(JSON.stringify({ type: 'ping' }));
    await feed.next((f) => f.type === 'pong', from);
    expect(feed.frames.slice(from).filter((f) => f.type === 'error')).toHaveLength(3);
    expect(feed.ws.readyState).toBe(WebSocket.OPEN);
    feed.ws.send('x'.repeat(10_000));
    expect((await feed.closed).code).toBe(1009);
  });

  it('closes a session-authenticated feed once the session ends', async () => {
    const login = await t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    const cookie = sessionCookie(login);
    const feed = track(await open(t, { cookie }));
    expect((await t.request('/logout', { headers: { cookie } })).status).toBe(200);
    expect(await feed.closed).toEqual({ code: 1008, reason: 'login ended' });
  });
});

describe('the live feed at start-up and shutdown', () => {
  it('refuses a user who must still change the first-run password, and closes feeds cleanly when Junction stops', async () => {
    const t = await startJunction();
    try {
      const refused = await connect(t, { authorization: basic(ROOT_EMAIL, DEFAULT_ROOT_PASSWORD) });
      expect(refused).toMatchObject({ status: 403 });
      const admin = { authorization: await unlockRoot(t) };
      const feed = await open(t, admin);
      const stopping = t.stop();
      expect(await feed.closed).toEqual({ code: 1001, reason: 'Junction is stopping' });
      await stopping;
    } finally {
      await t.destroy();
    }
  });
});
