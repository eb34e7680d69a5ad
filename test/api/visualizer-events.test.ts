import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import type { VisualizerEvent } from '../../service/contracts/visualizer.js';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

describe('GET /events/:receivedTime: the visualizer events', () => {
  let t: TestJunction;
  let admin: string;
  let nurse: string;
  let primary: Upstream;
  let secondary: Upstream;
  const channels: Record<string, string> = {};

  beforeAll(async () => {
    t = await startJunction();
    admin = await unlockRoot(t);
    const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
    expect((await t.inject('/users', { method: 'POST', headers: { authorization: admin }, json: user })).status).toBe(201);
    nurse = basic(user.email, user.password);
    primary = await httpUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    secondary = await httpUpstream((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down');
    });
    for (const [name, acl] of [['ward', ['nurses']], ['billing', ['accounts']]] as const) {
      const res = await t.inject('/channels', {
        method: 'POST',
        headers: { authorization: admin },
        json: {
          name,
          urlPattern: `^/${name}$`,
          authType: 'public',
          txViewAcl: acl,
          routes: [
            { name: `${name}-main`, host: '127.0.0.1', port: primary.port, primary: true },
            { name: `${name}-copy`, host: '127.0.0.1', port: secondary.port },
          ],
        },
      });
      expect(res.status).toBe(201);
      channels[name] = (res.body as { _id: string })._id;
    }
  });
  afterAll(async () => {
    await primary.close();
    await secondary.close();
    await t.destroy();
  });

  /** Sends one request through a channel and waits until its events are recorded. */
  async function send(channel: string): Promise<string> {
    const completed = new Promise<string>((resolve) => {
      const listener = (event: { transactionId: string; channelID: string }) => {
        if (event.channelID !== channels[channel]) return;
        t.junction.events.off('transaction.completed', listener);
        resolve(event.transactionId);
      };
      t.junction.events.on('transaction.completed', listener);
    });
    const res = await fetch(`${t.httpUrl}/${channel}`, { method: 'POST', body: 'hello' });
    expect(res.status).toBe(200);
    await res.text();
    const id = await completed;
    await t.junction.visualizer.settled();
    return id;
  }

  async function events(since: number, authorization = admin): Promise<VisualizerEvent[]> {
    const res = await t.inject(`/events/${since}`, { headers: { authorization } });
    expect(res.status).toBe(200);
    return (res.body as { events: VisualizerEvent[] }).events;
  }

  it('answers the start and end of the channel, its primary route and its other route, in time order', async () => {
    const since = Date.now();
    const id = await send('ward');
    const mine = (await events(since)).filter((e) => e.transactionID === id);
    const tx = await completedTransaction(t, id);
    expect(mine.map((e) => `${e.type}:${e.event}`).sort()).toEqual(['channel:end', 'channel:start', 'primary:end', 'primary:start', 'route:end', 'route:start']);
    const stamps = mine.map((e) => e.normalizedTimestamp);
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    const byKey = Object.fromEntries(mine.map((e) => [`${e.type}:${e.event}`, e]));
    expect(byKey['channel:start']).toMatchObject({ channelID: channels.ward, name: 'ward' });
    expect(byKey['channel:end']).toMatchObject({ name: 'ward', status: 200, statusType: 'success', autoRetryAttempt: 0 });
    expect(byKey['primary:start']).toMatchObject({ name: 'ward-main', normalizedTimestamp: tx.request.timestamp.getTime() });
    expect(byKey['primary:end']).toMatchObject({ name: 'ward-main', status: 200, statusType: 'success' });
    expect(byKey['route:end']).toMatchObject({ name: 'ward-copy', status: 503, statusType: 'error' });
    // Ends are drawn after starts.
    expect(byKey['channel:end']!.normalizedTimestamp).toBeGreaterThan(byKey['channel:start']!.normalizedTimestamp);
    expect(byKey['primary:end']!.normalizedTimestamp).toBeGreaterThan(byKey['primary:start']!.normalizedTimestamp);
  });

  it('answers only events recorded at or after receivedTime', async () => {
    const first = await send('ward');
    const since = Date.now() + 1;
    // The next transaction's events are recorded at least a millisecond later.
    await new Promise((resolve) => setImmediate(resolve));
    while (Date.now() < since) await new Promise((resolve) => setImmediate(resolve));
    const second = await send('ward');
    const ids = new Set((await events(since)).map((e) => e.transactionID));
    expect(ids.has(second)).toBe(true);
    expect(ids.has(first)).toBe(false);
    expect(await events(Date.now() + 60_000)).toEqual([]);
  });

  it('shows a user only the events of channels they may view', async () => {
    const since = Date.now();
    const ward = await send('ward');
    const billing = await send('billing');
    const adminSees = new Set((await events(since)).map((e) => e.transactionID));
    expect(adminSees.has(ward) && adminSees.has(billing)).toBe(true);
    const nurseSees = await events(since, nurse);
    expect(nurseSees.some((e) => e.transactionID === ward)).toBe(true);
    expect(nurseSees.some((e) => e.channelID === channels.billing)).toBe(false);
  });

  it('refuses a receivedTime that is not epoch milliseconds with a 400, and callers without credentials with a 401', async () => {
    for (const bad of ['yesterday', '-5', '1.5', '9999999999999999999']) {
      const res = await t.inject(`/events/${bad}`, { headers: { authorization: admin } });
      expect(res.status, bad).toBe(400);
      expect(res.text, bad).toContain('receivedTime');
    }
    expect((await t.inject('/events/0')).status).toBe(401);
  });
});
