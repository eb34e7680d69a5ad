/** Polling channels against real upstream servers: descriptive schedules, manual triggers, no overlap, rescheduling. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { sleep } from '../helpers/wait.js';

interface Hit {
  method: string;
  url: string;
  at: number;
}

interface TriggerAnswer {
  message: string;
  transactionId: string;
  alreadyRunning: boolean;
}

const SLOW_MS = 2500;

describe('polling channels', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let upstream: Upstream;
  const hits: Hit[] = [];
  let slowInFlight = 0;
  let slowMaxInFlight = 0;

  const hitsOf = (url: string, since = 0) => hits.filter((h) => h.url === url && h.at >= since);

  async function channel(name: string, extra: Record<string, unknown>): Promise<string> {
    const res = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name, type: 'polling', urlPattern: `^/${name}$`, routes: [{ name: 'main', host: '127.0.0.1', port: upstream.port, primary: true }], ...extra },
    });
    if (res.status !== 201) throw new Error(`channel: ${res.status} ${res.text}`);
    return (res.body as { _id: string })._id;
  }

  const update = (id: string, json: Record<string, unknown>) => t.request(`/channels/${id}`, { method: 'PUT', headers: admin, json });
  const trigger = (id: string, headers = admin) => t.request(`/channels/${id}/trigger`, { method: 'POST', headers });
  const errorOf = (res: TestResponse) => (res.body as { error: { message: string; details: { path: string }[] } }).error;

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    upstream = await httpUpstream((req, res) => {
      const url = req.url ?? '';
      hits.push({ method: req.method ?? '', url, at: Date.now() });
      const slow = url === '/slow';
      if (slow) slowMaxInFlight = Math.max(slowMaxInFlight, ++slowInFlight);
      setTimeout(
        () => {
          if (slow) slowInFlight--;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"polled":true}');
        },
        slow ? SLOW_MS : 0,
      );
    });
  });

  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  it('validates the schedule when the channel is saved, naming the field', async () => {
    for (const pollingSchedule of ['every now and then', '61 * * * *', '5 weeks', '* * * *']) {
      const res = await t.request('/channels', {
        method: 'POST',
        headers: admin,
        json: { name: `bad-${pollingSchedule}`, type: 'polling', urlPattern: '^/x$', pollingSchedule, routes: [{ name: 'r', host: '127.0.0.1', port: upstream.port, primary: true }] },
      });
      expect(res.status, pollingSchedule).toBe(400);
      expect(errorOf(res).details.map((d) => d.path)).toEqual(['body.pollingSchedule']);
    }
  });

  it('polls GET /trigger, or the route’s own path, on a descriptive schedule, stored with no client', async () => {
    const started = Date.now();
    const id = await channel('ticker', {
      pollingSchedule: '1 second',
      routes: [
        { name: 'main', host: '127.0.0.1', port: upstream.port, primary: true },
        { name: 'own-path', host: '127.0.0.1', port: upstream.port, path: '/status/ping' },
      ],
    });
    await sleep(3400);
    const ticks = hitsOf('/trigger', started);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks.length).toBeLessThanOrEqual(4);
    expect(ticks.every((h) => h.method === 'GET')).toBe(true);
    expect(hitsOf('/status/ping', started)).toHaveLength(ticks.length);

    const stored = await t.junction.transactions.page({ channelID: [id] }, { limit: 10 });
    expect(stored.length).toBeGreaterThanOrEqual(2);
    const [latest] = stored.filter((tx) => tx.status !== 'Processing');
    expect(latest).toMatchObject({ status: 'Successful', request: { method: 'GET', path: '/trigger' }, routes: [{ name: 'own-path', request: { path: '/status/ping' } }] });
    expect(latest?.clientID).toBeUndefined();

    // Disabling stops it at once, enabling restarts it, and deleting removes it: no restart needed.
    expect((await update(id, { status: 'disabled' })).status).toBe(200);
    await sleep(300);
    const disabledAt = Date.now();
    await sleep(1600);
    expect(hitsOf('/trigger', disabledAt)).toEqual([]);
    expect((await update(id, { status: 'enabled' })).status).toBe(200);
    const enabledAt = Date.now();
    await sleep(1600);
    expect(hitsOf('/trigger', enabledAt).length).toBeGreaterThanOrEqual(1);
    // Editing the schedule replaces it: a yearly cron does not fire in this test.
    expect((await update(id, { pollingSchedule: '0 0 1 1 *' })).status).toBe(200);
    await sleep(300);
    const editedAt = Date.now();
    await sleep(1600);
    expect(hitsOf('/trigger', editedAt)).toEqual([]);
    expect((await update(id, { pollingSchedule: '1 second' })).status).toBe(200);
    await sleep(1500);
    expect((await t.request(`/channels/${id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    await sleep(300);
    const deletedAt = Date.now();
    await sleep(1600);
    expect(hitsOf('/trigger', deletedAt)).toEqual([]);
  });

  it('fires one tick now on POST /channels/:id/trigger', async () => {
    const id = await channel('manual', { pollingSchedule: '0 0 1 1 *' });
    const before = hitsOf('/trigger').length;
    const res = await trigger(id);
    expect(res.status).toBe(200);
    const answer = res.body as TriggerAnswer;
    expect(answer).toMatchObject({ alreadyRunning: false, message: 'Channel manual triggered' });
    const tx = await completedTransaction(t, answer.transactionId);
    expect(tx).toMatchObject({ channelID: id, status: 'Successful', request: { method: 'GET', path: '/trigger' }, response: { status: 200 } });
    expect(tx.clientID).toBeUndefined();
    expect(hitsOf('/trigger').length).toBe(before + 1);

    const http = await t.request('/channels', { method: 'POST', headers: admin, json: { name: 'plain-http', urlPattern: '^/plain$', routes: [{ name: 'r', host: '127.0.0.1', port: upstream.port, primary: true }] } });
    const notPolling = await trigger((http.body as { _id: string })._id);
    expect(notPolling.status).toBe(400);
    expect(errorOf(notPolling).message).toContain('only polling channels can be triggered');
    await update(id, { status: 'disabled' });
    expect((await trigger(id)).status).toBe(409);
    expect((await trigger('0123456789abcdef')).status).toBe(404);
    const password = 'user-password-123';
    await t.request('/users', { method: 'POST', headers: admin, json: { email: 'nia@clinic.example', firstname: 'N', surname: 'A', groups: ['ops'], password } });
    expect((await trigger(id, { authorization: basic('nia@clinic.example', password) })).status).toBe(403);
  });

  it('never overlaps ticks of one channel while its target is slow, scheduled or triggered', async () => {
    const started = Date.now();
    const id = await channel('slow', { pollingSchedule: '1 second', routes: [{ name: 'main', host: '127.0.0.1', port: upstream.port, path: '/slow', primary: true }] });
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (slowInFlight > 0) {
          clearInterval(poll);
          resolve();
        } else if (Date.now() - started > 5000) {
          clearInterval(poll);
          reject(new Error('the slow channel never ticked'));
        }
      }, 10);
    });
    // A manual trigger during the tick joins it instead of starting a second request.
    const joined = (await trigger(id)).body as TriggerAnswer;
    expect(joined.alreadyRunning).toBe(true);
    await sleep(SLOW_MS * 2 + 500);
    await t.request(`/channels/${id}`, { method: 'PUT', headers: admin, json: { status: 'disabled' } });
    expect(slowMaxInFlight).toBe(1);
    // About 6 seconds of a 1-second schedule, but each tick waits 2.5 s for its answer.
    const ticks = hitsOf('/slow', started);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < ticks.length; i++) expect((ticks[i]?.at ?? 0) - (ticks[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(SLOW_MS - 50);
    const joinedTx = await completedTransaction(t, joined.transactionId);
    expect(joinedTx).toMatchObject({ channelID: id, status: 'Successful', request: { path: '/trigger' } });
  });
});
