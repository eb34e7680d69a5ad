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
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { startPostgresServer } from '../helpers/postgres-server.js';
import type { PostgresServer } from '../helpers/postgres-server.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { adt, msaOf, rawPeer } from '../transports/fixtures.js';
import { bodyText, hl7Upstream } from '../messages/hl7-peers.js';
import { echoUpstream, loadedChannels } from './outage-load.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';

/** One request or message and what its sender got. */
interface Outcome {
  kind: 'http' | 'mllp';
  /** The body sent (HTTP) or the MSH-10 control id (MLLP). */
  sent: string;
  at: number;
  /** HTTP status, or the ACK's MSA-1 code. */
  answer?: number | string;
  transactionId?: string | null;
  errorCode?: string;
  /** A reset, a timeout, a closed connection: what must never happen. */
  broken?: string;
}

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

    const outcomes: Outcome[] = [];
    let running = true;
    const marks = { downAt: 0, upAt: 0 };
    let sequence = 0;
    const httpClient = async (client: number) => {
      while (running) {
        const sent = `client ${client} request ${++sequence}`;
        const at = Date.now();
        try {
          const res = await fetch(`${a.httpUrl}/outage/${client}`, { method: 'POST', body: sent, signal: AbortSignal.timeout(HUNG_MS) });
          const text = await res.text();
          const errorCode = res.status === 200 ? undefined : (JSON.parse(text) as { error?: { code?: string } }).error?.code;
          outcomes.push({ kind: 'http', sent, at, answer: res.status, transactionId: res.headers.get('x-openhim-transactionid'), ...(errorCode === undefined ? {} : { errorCode }) });
        } catch (err) {
          outcomes.push({ kind: 'http', sent, at, broken: String((err as Error).cause ?? err) });
        }
      }
    };
    const mllpClient = async (client: number) => {
      while (running) {
        const sent = `OUT-${client}-${++sequence}`;
        const at = Date.now();
        const exchange = await rawPeer(mllp.tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(adt(sent)))), 1, HUNG_MS);
        const [reply] = exchange.replies;
        if (exchange.closedBy === 'client' && reply !== undefined) outcomes.push({ kind: 'mllp', sent, at, answer: msaOf(reply).code });
        else outcomes.push({ kind: 'mllp', sent, at, broken: `${exchange.closedBy} ${exchange.error ?? ''}` });
      }
    };
    const clients = [...Array.from({ length: HTTP_CLIENTS }, (_, i) => httpClient(i)), ...Array.from({ length: MLLP_CLIENTS }, (_, i) => mllpClient(i))];
    const done = (kind: Outcome['kind'], after: number) => outcomes.some((o) => o.kind === kind && o.at >= after && (o.answer === 200 || o.answer === 'AA'));
    const refused = (after: number) => outcomes.filter((o) => o.at >= after && o.answer !== 200 && o.answer !== 'AA').length;

    try {
      await until('traffic through both channels before the outage', () => (done('http', 0) && done('mllp', 0) ? true : undefined));

      await server.stop();
      const downAt = Date.now();
      marks.downAt = downAt;
      const health = await until('/health to report the outage', async () => {
        const res = await a.request('/health');
        const body = res.body as { status: string; store: { unreachable?: { since: string; error: string } } };
        return res.status === 503 && body.store.unreachable !== undefined ? body : undefined;
      });
      expect(health.status).toBe('unavailable');
      // The console's needs-attention list says what is wrong, first.
      const attention = await a.request('/attention', { headers: signedIn });
      expect(attention.status, attention.text).toBe(200);
      const [first] = (attention.body as { items: { kind: string; severity: string; message: string }[] }).items;
      expect(first).toMatchObject({ kind: 'database-unreachable', severity: 'error' });
      expect(first?.message).toContain(health.store.unreachable?.since);
      // Only that list opens to a session checked before the outage: the rest answers a clear 503.
      const channels = await a.request('/channels', { headers: signedIn });
      expect(channels.status).toBe(503);
      expect((channels.body as { error: { code: string } }).error.code).toBe('STORE_UNAVAILABLE');
      await until('senders refused during the outage', () => (refused(downAt) >= 5 ? true : undefined));
      // Down long enough for each instance's notice connection to fail to reconnect twice (it then waits between tries).
      const reconnectsFailed = (t: TestJunction) => t.logs.filter((l) => l.msg === 'the cluster notification connection could not be opened again').length;
      await until('the notice connections to fail to reconnect', () => (reconnectsFailed(a) >= 2 && reconnectsFailed(b) >= 2 ? true : undefined));

      await server.start();
      const upAt = Date.now();
      marks.upAt = upAt;
      await until('HTTP and MLLP served again after the restart', () => (done('http', upAt) && done('mllp', upAt) ? true : undefined), 10_000);
      expect(Date.now() - upAt).toBeLessThan(10_000);
      await until('/health to report the database back', async () => ((await a.request('/health')).status === 200 ? true : undefined), 10_000);
    } finally {
      running = false;
      await Promise.all(clients);
    }

    if (process.env.OUTAGE_DEBUG !== undefined) {
      console.log(JSON.stringify({ downAt: marks.downAt, upAt: marks.upAt, outcomes }, null, 1));
      console.log(JSON.stringify(a.logs.filter((l) => (l.level as number) >= 40).slice(0, 40), null, 1));
    }
    // Nothing hung, nothing was reset: each sender got an answer.
    expect(outcomes.filter((o) => o.broken !== undefined)).toEqual([]);
    // Every refusal is a clear one.
    for (const o of outcomes.filter((x) => x.kind === 'http' && x.answer !== 200)) expect(o, o.sent).toMatchObject({ answer: 503, errorCode: 'STORE_UNAVAILABLE' });
    for (const o of outcomes.filter((x) => x.kind === 'mllp' && x.answer !== 'AA')) expect(['AR', 'CR'], o.sent).toContain(o.answer);
    expect(refused(0)).toBeGreaterThan(0);

    // Nothing is left Processing: transactions whose outcome could not be written are finished once the database is back.
    const all = await until('no transaction left Processing', async () => {
      const page = await a.junction.transactions.page({}, { limit: 10_000 });
      return page.some((tx) => tx.status === 'Processing') ? undefined : page;
    }, 15_000);

    // Every acknowledged request is stored, with its bodies.
    for (const o of outcomes.filter((x) => x.kind === 'http' && x.answer === 200)) {
      const tx = all.find((t) => t._id === o.transactionId);
      expect(tx?.status, o.sent).toBe('Successful');
      expect(await bodyText(a, tx?.request.body)).toBe(o.sent);
      expect(await bodyText(a, tx?.response?.body)).toBe(`got ${o.sent}`);
    }
    const byControlId = new Map<string, (typeof all)[number]>();
    for (const tx of all.filter((t) => t.channelID === mllp._id)) {
      const text = await bodyText(a, tx.request.body);
      const id = text.split('\r')[0]?.split('|')[9];
      if (id !== undefined) byControlId.set(id, tx);
    }
    for (const o of outcomes.filter((x) => x.kind === 'mllp' && x.answer === 'AA')) {
      const tx = byControlId.get(o.sent);
      expect(tx?.status, o.sent).toBe('Successful');
      expect(msaOf(await bodyText(a, tx?.response?.body))).toEqual({ code: 'AA', controlId: o.sent });
    }

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
