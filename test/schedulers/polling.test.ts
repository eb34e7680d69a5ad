/**
 * Polling channels against real upstream servers: descriptive schedules, manual triggers, no overlap, rescheduling.
 * The job clock is moved by hand (ManualTimers), so each tick is checked as it falls due, without waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';

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

describe('polling channels', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let upstream: Upstream;
  const timers = new ManualTimers();
  const hits: Hit[] = [];
  /** Answers to /slow, held until the test lets them go. */
  const held: (() => void)[] = [];
  let slowInFlight = 0;
  let slowMaxInFlight = 0;

  const hitsOf = (url: string, since = -1) => hits.filter((h) => h.url === url && h.at > since);
  /** Moves the job clock on and waits for the ticks that fell due to finish. */
  const tick = async (ms: number) => {
    timers.advance(ms);
    await t.junction.jobsSettled();
  };
  /** Waits until the polling jobs follow the channels as they are now. */
  const rescheduled = () => t.junction.runJob('polling');
  const releaseSlow = () => {
    for (const release of held.splice(0)) release();
  };

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
  const trigger = (id: string, headers = admin) => t.request(`/channels/${id}/trigger`, { method: 'POST', headers: { ...headers, 'x-requested-with': 'test' } });
  const errorOf = (res: TestResponse) => (res.body as { error: { message: string; details: { path: string }[] } }).error;

  beforeAll(async () => {
    t = await startJunction({}, { timers });
    admin = { authorization: await unlockRoot(t) };
    upstream = await httpUpstream((req, res) => {
      const url = req.url ?? '';
      hits.push({ method: req.method ?? '', url, at: timers.now() });
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"polled":true}');
      };
      if (url !== '/slow') return answer();
      slowMaxInFlight = Math.max(slowMaxInFlight, ++slowInFlight);
      held.push(() => {
        slowInFlight--;
        answer();
      });
    });
  });

  afterAll(async () => {
    releaseSlow();
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
    const started = timers.now();
    const id = await channel('ticker', {
      pollingSchedule: '1 second',
      routes: [
        { name: 'main', host: '127.0.0.1', port: upstream.port, primary: true },
        { name: 'own-path', host: '127.0.0.1', port: upstream.port, path: '/status/ping' },
      ],
    });
    await rescheduled();
    await tick(999);
    expect(hitsOf('/trigger', started)).toEqual([]);
    await tick(1);
    expect(hitsOf('/trigger', started)).toHaveLength(1);
    await tick(1000);
    await tick(1000);
    const ticks = hitsOf('/trigger', started);
    expect(ticks.map((h) => h.at - started)).toEqual([1000, 2000, 3000]);
    expect(ticks.every((h) => h.method === 'GET')).toBe(true);
    expect(hitsOf('/status/ping', started)).toHaveLength(3);

    const stored = await t.junction.transactions.page({ channelID: [id] }, { limit: 10 });
    expect(stored).toHaveLength(3);
    for (const tx of stored) {
      expect(tx).toMatchObject({ status: 'Successful', request: { method: 'GET', path: '/trigger' }, routes: [{ name: 'own-path', request: { path: '/status/ping' } }] });
      expect(tx.clientID).toBeUndefined();
    }

    // Disabling stops it at once, enabling restarts it, and deleting removes it: no restart needed.
    expect((await update(id, { status: 'disabled' })).status).toBe(200);
    await rescheduled();
    const disabledAt = timers.now();
    await tick(5000);
    expect(hitsOf('/trigger', disabledAt)).toEqual([]);
    expect((await update(id, { status: 'enabled' })).status).toBe(200);
    await rescheduled();
    const enabledAt = timers.now();
    await tick(1000);
    expect(hitsOf('/trigger', enabledAt).map((h) => h.at - enabledAt)).toEqual([1000]);
    // Editing the schedule replaces it: a yearly cron does not fire within a day.
    expect((await update(id, { pollingSchedule: '0 0 1 1 *' })).status).toBe(200);
    await rescheduled();
    const editedAt = timers.now();
    await tick(5000);
    await tick(86_400_000);
    expect(hitsOf('/trigger', editedAt)).toEqual([]);
    expect((await update(id, { pollingSchedule: '1 second' })).status).toBe(200);
    await rescheduled();
    const backAt = timers.now();
    await tick(1000);
    expect(hitsOf('/trigger', backAt)).toHaveLength(1);
    expect((await t.request(`/channels/${id}`, { method: 'DELETE', headers: admin })).status).toBe(200);
    await rescheduled();
    const deletedAt = timers.now();
    await tick(5000);
    expect(hitsOf('/trigger', deletedAt)).toEqual([]);
  });

  it('fires a cron schedule at the times it names', async () => {
    // Every 15 seconds on the clock, counted from a whole minute, not from when the channel was saved.
    const id = await channel('cron', { pollingSchedule: '*/15 * * * * *' });
    await rescheduled();
    const started = timers.now();
    const firstDue = Math.ceil((started + 1) / 15_000) * 15_000;
    await tick(firstDue - started - 1);
    expect(hitsOf('/trigger', started)).toEqual([]);
    await tick(1);
    await tick(15_000);
    expect(hitsOf('/trigger', started).map((h) => h.at)).toEqual([firstDue, firstDue + 15_000]);
    expect((await update(id, { status: 'disabled' })).status).toBe(200);
    await rescheduled();
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
    const started = timers.now();
    const id = await channel('slow', { pollingSchedule: '1 second', routes: [{ name: 'main', host: '127.0.0.1', port: upstream.port, path: '/slow', primary: true }] });
    await rescheduled();
    timers.advance(1000);
    await until('the first tick to reach the slow target', () => (slowInFlight === 1 ? true : undefined));
    // A manual trigger during the tick joins it instead of starting a second request.
    const joined = (await trigger(id)).body as TriggerAnswer;
    expect(joined.alreadyRunning).toBe(true);
    // Three more runs fall due while the target has not answered: each joins the tick in flight.
    timers.advance(3000);
    expect((await trigger(id)).body).toMatchObject({ alreadyRunning: true, transactionId: joined.transactionId });
    expect(hitsOf('/slow', started)).toHaveLength(1);
    releaseSlow();
    await t.junction.jobsSettled();
    const joinedTx = await completedTransaction(t, joined.transactionId);
    expect(joinedTx).toMatchObject({ channelID: id, status: 'Successful', request: { path: '/trigger' } });
    // Once it has answered, the next due run starts a new tick.
    timers.advance(1000);
    await until('the second tick to reach the slow target', () => (slowInFlight === 1 ? true : undefined));
    expect(hitsOf('/slow', started).map((h) => h.at - started)).toEqual([1000, 5000]);
    await t.request(`/channels/${id}`, { method: 'PUT', headers: admin, json: { status: 'disabled' } });
    releaseSlow();
    await t.junction.jobsSettled();
    expect(slowMaxInFlight).toBe(1);
  });
});
