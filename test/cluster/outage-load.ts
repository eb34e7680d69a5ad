/**
 * What the PostgreSQL outage and freeze tests share: an upstream that echoes what it got (with its length, as most
 * small answers come: read whole, committed, then sent by respond.ts; a streamed answer's status line leaves before
 * the commit, so a commit that fails then can only cut it), and the two channels they load (HTTP and MLLP) with an
 * administrator signed in to the console before the fault; the senders that load them, and what every such test checks
 * afterwards (nothing hung, every refusal clear, nothing acknowledged lost).
 */
import { expect } from 'vitest';
import { NEW_ROOT_PASSWORD, ROOT_EMAIL, sessionCookie } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { until } from '../helpers/wait.js';
import { adt, msaOf, rawPeer } from '../transports/fixtures.js';
import { bodyText, listeningChannel } from '../messages/hl7-peers.js';

export function echoUpstream(): Promise<Upstream> {
  return httpUpstream((req, res) => {
    void readBody(req).then((body) => {
      const answer = Buffer.from(`got ${body}`);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': answer.length });
      res.end(answer);
    });
  });
}

/** An HTTP channel at `/<name>/…` to `upstreamPort` and an MLLP channel to `hl7Port`; the console's session cookie. */
export async function loadedChannels(
  a: TestJunction,
  admin: { authorization: string },
  name: string,
  ports: { upstream: number; hl7: number },
): Promise<{ mllp: Awaited<ReturnType<typeof listeningChannel>>; signedIn: { cookie: string } }> {
  const created = await a.request('/channels', {
    method: 'POST',
    headers: admin,
    json: { name: `${name} http`, urlPattern: `^/${name}/.*$`, authType: 'public', methods: ['POST'], routes: [{ name: 'up', host: '127.0.0.1', port: ports.upstream, primary: true }] },
  });
  expect(created.status, created.text).toBe(201);
  const mllp = await listeningChannel(a, admin, ports.hl7, `${name} mllp`);
  const login = await a.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
  expect(login.status, login.text).toBe(200);
  const signedIn = { cookie: sessionCookie(login) };
  expect((await a.request('/attention', { headers: signedIn })).status).toBe(200);
  return { mllp, signedIn };
}

/** One sender's exchange during a database fault. */
export interface Outcome {
  kind: 'http' | 'mllp';
  sent: string;
  at: number;
  tookMs: number;
  /** HTTP status, or the ACK's MSA-1 code. */
  answer?: number | string;
  transactionId?: string | null;
  errorCode?: string;
  /** A reset, a timeout, a closed connection: what must never happen. */
  broken?: string;
}

export interface SenderLoad {
  outcomes: Outcome[];
  /** Whether a sender of `kind` was served (200 or AA) after `after`. */
  served: (kind: Outcome['kind'], after: number) => boolean;
  /** The answers after `after` that refused (neither 200 nor AA). */
  refusedAfter: (after: number) => Outcome[];
  /** Stops the senders once each has its answer. */
  stop: () => Promise<void>;
}

/**
 * Closed-loop senders: `http` clients POSTing to `/<name>/<client>` and `mllp` clients sending ADTs whose control id
 * is what they sent, each recording what it got, until `stop`. A sender waiting past `hungMs` is recorded as broken.
 */
export function startSenders(a: TestJunction, name: string, mllpPort: number, counts: { http: number; mllp: number; hungMs: number }): SenderLoad {
  const outcomes: Outcome[] = [];
  let running = true;
  let sequence = 0;
  const httpClient = async (client: number): Promise<void> => {
    while (running) {
      const sent = `client ${client} request ${++sequence}`;
      const at = Date.now();
      try {
        const res = await fetch(`${a.httpUrl}/${name}/${client}`, { method: 'POST', body: sent, signal: AbortSignal.timeout(counts.hungMs) });
        const text = await res.text();
        const errorCode = res.status === 200 ? undefined : (JSON.parse(text) as { error?: { code?: string } }).error?.code;
        outcomes.push({ kind: 'http', sent, at, tookMs: Date.now() - at, answer: res.status, transactionId: res.headers.get('x-openhim-transactionid'), ...(errorCode === undefined ? {} : { errorCode }) });
      } catch (err) {
        outcomes.push({ kind: 'http', sent, at, tookMs: Date.now() - at, broken: String((err as Error).cause ?? err) });
      }
    }
  };
  const mllpClient = async (client: number): Promise<void> => {
    while (running) {
      const sent = `${name.slice(0, 3).toUpperCase()}-${client}-${++sequence}`;
      const at = Date.now();
      const exchange = await rawPeer(mllpPort, (socket) => void socket.write(frameMllp(Buffer.from(adt(sent)))), 1, counts.hungMs);
      const [reply] = exchange.replies;
      if (exchange.closedBy === 'client' && reply !== undefined) outcomes.push({ kind: 'mllp', sent, at, tookMs: Date.now() - at, answer: msaOf(reply).code });
      else outcomes.push({ kind: 'mllp', sent, at, tookMs: Date.now() - at, broken: `${exchange.closedBy} ${exchange.error ?? ''}` });
    }
  };
  const clients = [...Array.from({ length: counts.http }, (_, i) => httpClient(i)), ...Array.from({ length: counts.mllp }, (_, i) => mllpClient(i))];
  const ok = (o: Outcome): boolean => o.answer === 200 || o.answer === 'AA';
  return {
    outcomes,
    served: (kind, after) => outcomes.some((o) => o.kind === kind && o.at >= after && ok(o)),
    refusedAfter: (after) => outcomes.filter((o) => o.at >= after && o.answer !== undefined && !ok(o)),
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
}

/** Waits for /health to say the database is away, and checks the needs-attention list says so first; /health's body. */
export async function databaseAway(a: TestJunction, signedIn: { cookie: string }): Promise<{ status: string; store: { unreachable?: { since: string; error: string } } }> {
  const health = await until('/health to report the database away', async () => {
    const res = await a.request('/health');
    const body = res.body as { status: string; store: { unreachable?: { since: string; error: string } } };
    return res.status === 503 && body.store.unreachable !== undefined ? body : undefined;
  });
  expect(health.status).toBe('unavailable');
  const attention = await a.request('/attention', { headers: signedIn });
  expect(attention.status, attention.text).toBe(200);
  const [first] = (attention.body as { items: { kind: string; severity: string; message: string }[] }).items;
  expect(first).toMatchObject({ kind: 'database-unreachable', severity: 'error' });
  expect(first?.message).toContain(health.store.unreachable?.since);
  return health;
}

/**
 * After the fault: no sender hung or was cut, every refusal is a clear one (503 STORE_UNAVAILABLE over HTTP, an AR or
 * CR NAK over MLLP), nothing is left Processing, and every acknowledged message is stored with its bodies.
 */
export async function expectNothingLost(a: TestJunction, outcomes: readonly Outcome[], mllpChannelId: string): Promise<void> {
  expect(outcomes.filter((o) => o.broken !== undefined)).toEqual([]);
  for (const o of outcomes.filter((x) => x.kind === 'http' && x.answer !== 200)) expect(o, o.sent).toMatchObject({ answer: 503, errorCode: 'STORE_UNAVAILABLE' });
  for (const o of outcomes.filter((x) => x.kind === 'mllp' && x.answer !== 'AA')) expect(['AR', 'CR'], o.sent).toContain(o.answer);
  // Transactions whose outcome could not be written are finished once the database is back.
  const all = await until('no transaction left Processing', async () => {
    const page = await a.junction.transactions.page({}, { limit: 10_000 });
    return page.some((tx) => tx.status === 'Processing') ? undefined : page;
  }, 15_000);
  for (const o of outcomes.filter((x) => x.kind === 'http' && x.answer === 200)) {
    const tx = all.find((t) => t._id === o.transactionId);
    expect(tx?.status, o.sent).toBe('Successful');
    expect(await bodyText(a, tx?.request.body)).toBe(o.sent);
    expect(await bodyText(a, tx?.response?.body)).toBe(`got ${o.sent}`);
  }
  const byControlId = new Map<string, (typeof all)[number]>();
  for (const tx of all.filter((t) => t.channelID === mllpChannelId)) {
    const id = (await bodyText(a, tx.request.body)).split('\r')[0]?.split('|')[9];
    if (id !== undefined) byControlId.set(id, tx);
  }
  for (const o of outcomes.filter((x) => x.kind === 'mllp' && x.answer === 'AA')) {
    const tx = byControlId.get(o.sent);
    expect(tx?.status, o.sent).toBe('Successful');
    expect(msaOf(await bodyText(a, tx?.response?.body))).toEqual({ code: 'AA', controlId: o.sent });
  }
}
