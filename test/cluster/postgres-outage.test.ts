/**
 * Issue 38, deliverable 2: PostgreSQL stopped and started again under load, as an operator would. A server of this
 * test's own (the suite's shared one serves other test files meanwhile); two Junction instances on it, one under load
 * from HTTP and MLLP clients. Every answer that said "done" must be stored with its body, every other answer must be
 * a clear refusal, nothing may hang or be reset, nothing may stay Processing, /health must say what is wrong, and
 * both instances must serve again, and hear each other's change notices, without a restart.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { startPostgresServer } from '../helpers/postgres-server.js';
import type { PostgresServer } from '../helpers/postgres-server.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { hl7Upstream } from '../messages/hl7-peers.js';
import { databaseAway, echoUpstream, expectNothingLost, loadedChannels, startSenders } from './outage-load.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';

const HTTP_CLIENTS = 3;
const MLLP_CLIENTS = 2;
/** Longer than any answer may take: a connection wait is bounded at 10 s, and the routes answer at once. */
const HUNG_MS = 20_000;

describe('a PostgreSQL outage under load', () => {
  let server: PostgresServer;
  let shared: string;
  let a: TestJunction;
  let b: TestJunction;
  let admin: { authorization: string };
  let upstream: Upstream;
  let hl7: Hl7Upstream;

  beforeAll(async () => {
    server = await startPostgresServer();
    shared = await tempDir('junction-outage-shared-');
    const file = { storage: { engine: 'postgres' as const, postgres: { url: server.url, poolSize: 4 } }, keystore: { secretFile: join(shared, 'keystore.secret') } };
    a = await startJunction(file);
    b = await startJunction(file);
    admin = { authorization: await unlockRoot(a) };
    upstream = await echoUpstream();
    hl7 = await hl7Upstream();
  }, 60_000);

  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
    await upstream?.close();
    await hl7?.close();
    await server?.destroy();
    if (shared !== undefined) await rm(shared, { recursive: true, force: true });
  });

  it('refuses what it cannot record, loses nothing it acknowledged, says so on /health, and serves again by itself', async () => {
    // An administrator signed in to the console before the outage.
    const { mllp, signedIn } = await loadedChannels(a, admin, 'outage', { upstream: upstream.port, hl7: hl7.port });

    const load = startSenders(a, 'outage', mllp.tcpPort, { http: HTTP_CLIENTS, mllp: MLLP_CLIENTS, hungMs: HUNG_MS });
    const { served, refusedAfter } = load;
    const marks = { downAt: 0, upAt: 0 };

    try {
      await until('traffic through both channels before the outage', () => (served('http', 0) && served('mllp', 0) ? true : undefined));

      await server.stop();
      const downAt = Date.now();
      marks.downAt = downAt;
      // /health and, first, the console's needs-attention list say what is wrong.
      await databaseAway(a, signedIn);
      // Only that list opens to a session checked before the outage: the rest answers a clear 503.
      const channels = await a.request('/channels', { headers: signedIn });
      expect(channels.status).toBe(503);
      expect((channels.body as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
      await until('senders refused during the outage', () => (refusedAfter(downAt).length >= 5 ? true : undefined));
      // Down long enough for each instance's notice connection to fail to reconnect twice (it then waits between tries).
      const reconnectsFailed = (t: TestJunction) => t.logs.filter((l) => l.msg === 'the cluster notification connection could not be opened again').length;
      await until('the notice connections to fail to reconnect', () => (reconnectsFailed(a) >= 2 && reconnectsFailed(b) >= 2 ? true : undefined));

      await server.start();
      const upAt = Date.now();
      marks.upAt = upAt;
      await until('HTTP and MLLP served again after the restart', () => (served('http', upAt) && served('mllp', upAt) ? true : undefined), 10_000);
      expect(Date.now() - upAt).toBeLessThan(10_000);
      await until('/health to report the database back', async () => ((await a.request('/health')).status === 200 ? true : undefined), 10_000);
    } finally {
      await load.stop();
    }

    if (process.env.OUTAGE_DEBUG !== undefined) {
      console.log(JSON.stringify({ downAt: marks.downAt, upAt: marks.upAt, outcomes: load.outcomes }, null, 1));
      console.log(JSON.stringify(a.logs.filter((l) => (l.level as number) >= 40).slice(0, 40), null, 1));
    }
    expect(refusedAfter(0).length).toBeGreaterThan(0);
    await expectNothingLost(a, load.outcomes, mllp._id);

    // The other instance hears change notices again: a channel created through the first is served by the second.
    const later = await a.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'after the outage', urlPattern: '^/after/.*$', authType: 'public', methods: ['POST'], routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(later.status, later.text).toBe(201);
    const answer = await until('the new channel on the second instance', async () => {
      const res = await fetch(`${b.httpUrl}/after/one`, { method: 'POST', body: 'hello' });
      const text = await res.text();
      return res.status === 200 ? text : undefined;
    }, 10_000);
    expect(answer).toBe('got hello');
  }, 90_000);
});
