/**
 * Issue 12 item 1: no user-supplied regular expression can freeze Junction. Junction runs in this process, so a
 * pattern that backtracks would stall the heartbeat requests polled back to back meanwhile: one of them would be in
 * flight during the stall and take at least as long.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { basic, completedTransaction, NEW_ROOT_PASSWORD, ROOT_EMAIL, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

const HOSTILE = '^/ok/(a+)+$';
// V8's RegExp needs about 2 s to reject one such path with HOSTILE on this machine (the time doubles with each
// extra 'a'); RE2 needs microseconds.
const HOSTILE_PATH = `/ok/${'a'.repeat(26)}b`;
const MAX_HEARTBEAT_MS = 100;

const problems = (res: TestResponse) => (res.body as { error: { code: string; details: { path: string; message: string }[] } }).error;

/** Runs `work` while /heartbeat is polled back to back; gives its result and the slowest heartbeat in ms. */
async function withHeartbeat<T>(t: TestJunction, work: () => Promise<T>): Promise<{ result: T; worstMs: number; polls: number }> {
  let done = false;
  let worstMs = 0;
  let polls = 0;
  let first: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (first = resolve));
  const poller = (async () => {
    while (!done) {
      const start = performance.now();
      const res = await t.request('/heartbeat');
      if (res.status !== 200) throw new Error(`heartbeat answered ${res.status}`);
      worstMs = Math.max(worstMs, performance.now() - start);
      polls++;
      first();
    }
  })();
  // The first heartbeat opens the connection; from then on every stall falls inside some heartbeat.
  await started;
  worstMs = 0;
  try {
    const result = await work();
    return { result, worstMs, polls };
  } finally {
    done = true;
    await poller;
  }
}

/** A Junction with root unlocked, and an upstream that answers every request with 200 `ok`. */
async function junctionAndUpstream(): Promise<{ t: TestJunction; admin: { authorization: string }; upstream: Upstream }> {
  const t = await startJunction();
  const admin = { authorization: await unlockRoot(t) };
  const upstream = await httpUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  return { t, admin, upstream };
}

describe('hostile patterns', () => {
  let t: TestJunction;
  let upstream: Upstream;
  let admin: { authorization: string };
  const filters = (value: unknown) => encodeURIComponent(JSON.stringify(value));

  beforeAll(async () => {
    ({ t, admin, upstream } = await junctionAndUpstream());
    const channel = await t.inject('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'ok', urlPattern: '^/ok/.*$', authType: 'public', txRerunAcl: ['admin'], routes: [{ name: 'p', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(channel.status, channel.text).toBe(201);
    for (const path of [HOSTILE_PATH, '/ok/other']) {
      const res = await fetch(`${t.httpUrl}${path}`);
      await res.arrayBuffer();
      await completedTransaction(t, res.headers.get('x-openhim-transactionid'));
    }
  });

  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  it('filters stored paths with the pattern (the filter is really run)', async () => {
    const res = await t.inject(`/transactions?filters=${filters({ 'request.path': '^/ok/a+b$' })}`, { headers: admin });
    expect(res.status).toBe(200);
    expect((res.body as { request: { path: string } }[]).map((tx) => tx.request.path)).toEqual([HOSTILE_PATH]);
  });

  it('keeps /heartbeat under 100 ms while a backtracking request.path filter is listed, counted, exported and bulk re-run', async () => {
    const q = filters({ 'request.path': HOSTILE });
    const { result, worstMs, polls } = await withHeartbeat(t, async () => [
      await t.inject(`/transactions?filters=${q}`, { headers: admin }),
      await t.inject(`/transactions?filterRepresentation=bulkrerun&filters=${q}`, { headers: admin }),
      await t.inject(`/transactions/export?filters=${q}`, { headers: admin }),
      await t.inject('/bulkrerun', { method: 'POST', headers: admin, json: { filters: { 'request.path': HOSTILE } } }),
    ]);
    const [list, count, exported, task] = result;
    expect(list?.body).toEqual([]);
    expect(count?.body).toEqual({ count: 0, transactions: [] });
    expect(exported?.status).toBe(200);
    expect(exported?.text).toBe('');
    // The pattern matched nothing, so there is nothing to re-run (a 400 that says so, after the pattern ran).
    expect(task?.status, task?.text).toBe(400);
    expect(problems(task as TestResponse).code).toBe('TRANSACTION_NOT_RERUNNABLE');
    expect(polls).toBeGreaterThan(0);
    expect(worstMs).toBeLessThan(MAX_HEARTBEAT_MS);
  });
});

describe('hostile and unsupported patterns on channels and filters', () => {
  let t: TestJunction;
  let upstream: Upstream;
  let admin: { authorization: string };

  beforeAll(async () => {
    ({ t, admin, upstream } = await junctionAndUpstream());
  });

  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  const route = () => [{ name: 'p', host: '127.0.0.1', port: upstream.port, primary: true }];
  const createChannel = (json: Record<string, unknown>) => t.inject('/channels', { method: 'POST', headers: admin, json: { authType: 'public', routes: route(), ...json } });

  it('accepts a backtracking urlPattern, since it runs in linear time, and anonymous requests cannot stall the service with it', async () => {
    const created = await createChannel({ name: 'x', urlPattern: '^/x/(a+)+$' });
    expect(created.status, created.text).toBe(201);
    const { result, worstMs } = await withHeartbeat(t, async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${t.httpUrl}/x/${'a'.repeat(26 + i)}b`);
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      return statuses;
    });
    expect(result).toEqual([404, 404, 404]);
    expect(worstMs).toBeLessThan(MAX_HEARTBEAT_MS);
    // The channel is live: a path it matches is routed.
    const matched = await fetch(`${t.httpUrl}/x/aaaa`);
    expect(matched.status).toBe(200);
    await matched.arrayBuffer();
  });

  it('refuses lookbehind and backreferences in channel patterns and path transforms with 400, naming the field and why', async () => {
    const lookbehind = await createChannel({ name: 'lb', urlPattern: '^/lb/(?<=a)b$' });
    expect(lookbehind.status).toBe(400);
    expect(problems(lookbehind).code).toBe('VALIDATION_FAILED');
    expect(problems(lookbehind).details).toEqual([
      { path: 'body.urlPattern', message: 'lookbehind (?<=...) is not supported; Junction matches patterns in linear time' },
    ]);

    const backreference = await createChannel({ name: 'br', urlPattern: '^/br$', matchContentRegex: '<(\\w+)>.*</\\1>' });
    expect(backreference.status).toBe(400);
    expect(problems(backreference).details).toEqual([
      { path: 'body.matchContentRegex', message: 'backreferences such as \\1 are not supported; Junction matches patterns in linear time' },
    ]);

    const transform = await t.inject('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'tr', urlPattern: '^/tr$', authType: 'public', routes: [{ ...route()[0], pathTransform: 's/(?!\\/api)\\/tr/\\/x/' }] },
    });
    expect(transform.status).toBe(400);
    expect(problems(transform).details).toEqual([
      { path: 'body.routes.0.pathTransform', message: 'has a "from" pattern that lookahead (?!...) is not supported; Junction matches patterns in linear time' },
    ]);
    expect((await t.inject('/channels', { headers: admin })).body).not.toContainEqual(expect.objectContaining({ name: 'lb' }));
  });

  it('refuses lookbehind and backreferences in transaction filters with 400 on list, export and bulk re-run', async () => {
    const q = encodeURIComponent(JSON.stringify({ 'request.path': '^/(ok)/\\1' }));
    for (const path of [`/transactions?filters=${q}`, `/transactions/export?filters=${q}`]) {
      const res = await t.inject(path, { headers: admin });
      expect(res.status, path).toBe(400);
      expect(problems(res).details, path).toEqual([
        { path: 'querystring.filters.request.path', message: 'backreferences such as \\1 are not supported; Junction matches patterns in linear time' },
      ]);
    }
    const bulk = await t.inject('/bulkrerun', { method: 'POST', headers: admin, json: { filters: { 'request.path': '(?<!/api)/ok' } } });
    expect(bulk.status).toBe(400);
    expect(problems(bulk).details).toEqual([
      { path: 'body.filters.request.path', message: 'lookbehind (?<!...) is not supported; Junction matches patterns in linear time' },
    ]);
  });
});

describe('a channel stored before patterns were checked', () => {
  it('starts, never matches, is warned about once, and is still shown', async () => {
    const upstream = await httpUpstream((_req, res) => {
      res.writeHead(200);
      res.end('ok');
    });
    const first = await startJunction();
    const admin = { authorization: await unlockRoot(first) };
    const created = await first.inject('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'legacy', urlPattern: '^/legacy/.*$', authType: 'public', routes: [{ name: 'p', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as { _id: string })._id;
    // As an older Junction, which checked patterns with RegExp only, would have stored it.
    await first.junction.store.channels.updateById(id, { set: { urlPattern: '^/legacy/(?=x)' } });
    await first.stop();

    const again = await startJunction({}, { dataDir: first.dataDir });
    try {
      const warnings = again.logs.filter((line) => line.level === 40 && line.channel === 'legacy');
      expect(warnings).toEqual([expect.objectContaining({ field: 'channel.urlPattern', reason: expect.stringContaining('lookahead') as string })]);
      const shown = await again.inject(`/channels/${id}`, { headers: { authorization: basic(ROOT_EMAIL, NEW_ROOT_PASSWORD) } });
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ name: 'legacy', urlPattern: '^/legacy/(?=x)' });
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${again.httpUrl}/legacy/x`);
        await res.arrayBuffer();
        expect(res.status).toBe(404);
      }
      expect(again.logs.filter((line) => line.level === 40 && line.channel === 'legacy')).toHaveLength(1);
    } finally {
      await again.destroy();
      await upstream.close();
    }
  });
});
