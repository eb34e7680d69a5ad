/**
 * "Is it working?" (issue 36), end to end on both storage engines, over real sockets:
 * - `GET /channels/status`: today's received and failed counts (from the metric buckets) after real requests on the
 *   transaction port, today's refusals (a 401 recorded by the refusal recorder), the newest transaction's time, the
 *   address to send to (`https://127.0.0.1:<port>/fhir…`, `mllp://127.0.0.1:<port>`), and the listener's state
 *   (listening, not bound because another program holds the port, none for http and polling); who sees which rows.
 * - `POST /channels/:id/check-routes`: one route up, one refused (nothing listens), one HTTPS route whose self-signed
 *   certificate is not trusted until its CA is added to the keystore, and one TLS route whose upstream never
 *   answers the handshake (timed out within `router.routeCheckTimeoutMs`); nothing is sent to any of them.
 * - `POST /channels/:id/test-message`: an HL7 message through an MLLP channel to a node-hl7-server upstream and a
 *   FHIR body through an http channel, each a real transaction marked `test: "true"`; the refusals (a path the
 *   channel does not match, a disabled channel, a polling channel, a non-admin).
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelStatusAnswer, ChannelStatusRow, RouteCheckAnswer, TestMessageAnswer } from '../../service/contracts/channels.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { basic, completedTransaction, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream, httpsUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { bodyText, hl7Upstream, listeningChannel, silentUpstream } from '../messages/hl7-peers.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';
import { adt, freePort } from '../transports/fixtures.js';

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

/** A port that refuses connections: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  return freePort();
}

/** A POST without a body says it comes from a script, not another site's page (api/origin-check.ts). */
const MARKER = { 'x-requested-with': 'test' };

describe.each(['embedded', 'postgres'] as const)('channel status, route checks and test messages on the %s engine', (engine) => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };
  let upstream: Upstream;
  let lab: Hl7Upstream;
  let holder: Server;
  const received: { path: string; body: string }[] = [];
  const ids: Record<string, string> = {};

  const create = async (json: Record<string, unknown>): Promise<{ _id: string }> => {
    const res = await t.request('/channels', { method: 'POST', headers: admin, json });
    expect(res.status, res.text).toBe(201);
    return res.body as { _id: string };
  };
  const status = async (headers: { authorization: string } = admin): Promise<ChannelStatusAnswer> => {
    const res = await t.inject('/channels/status', { headers });
    expect(res.status, res.text).toBe(200);
    return res.body as ChannelStatusAnswer;
  };
  const row = (answer: ChannelStatusAnswer, id: string | undefined): ChannelStatusRow | undefined => answer.channels.find((c) => c._id === id);

  beforeAll(async () => {
    const storage = engine === 'postgres' ? { storage: { engine: 'postgres' as const, postgres: { url: (await (database ??= createTestDatabase())).url, poolSize: 4 } } } : {};
    t = await startJunction({
      ...storage,
      keystore: { secretFile: join(await tempDir(), 'keystore.secret') },
      router: { routeCheckTimeoutMs: 300 },
      refusals: { flushIntervalSeconds: 3600 },
    });
    admin = { authorization: await unlockRoot(t) };
    const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
    expect((await t.inject('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
    nurse = { authorization: basic(user.email, user.password) };
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then((body) => {
        received.push({ path: req.url ?? '', body });
        res.statusCode = req.url?.includes('broken') === true ? 500 : 200;
        res.end('{"resourceType":"OperationOutcome"}');
      });
    });
    lab = await hl7Upstream();
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await t.destroy();
    await upstream.close();
    await lab.close();
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it('answers today’s received, failed and refused counts, the newest message’s time, the address and the listener, per channel', async () => {
    ids.fhir = (
      await create({ name: 'FHIR', urlPattern: '^/fhir(/.*)?$', authType: 'public', txViewAcl: ['nurses'], routes: [{ name: 'fhir server', host: '127.0.0.1', port: upstream.port, primary: true }] })
    )._id;
    ids.locked = (await create({ name: 'locked', urlPattern: '^/locked$', authType: 'private', allow: ['lab'], routes: [{ name: 'r', host: '127.0.0.1', port: upstream.port, primary: true }] }))._id;
    ids.poll = (await create({ name: 'poller', type: 'polling', urlPattern: '^/poll$', pollingSchedule: '1 days', routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] }))._id;
    ids.mllp = (await listeningChannel(t, admin, lab.port, 'lab feed'))._id;
    const taken = (holder.address() as AddressInfo).port;
    const busy = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'port taken', type: 'tcp', tcpHost: '127.0.0.1', tcpPort: taken, authType: 'public', routes: [{ name: 'r', type: 'mllp', host: '127.0.0.1', port: lab.port, primary: true }] },
    });
    expect(busy.status, busy.text).toBe(201);
    ids.busy = (busy.body as { _id: string })._id;

    // A channel with no traffic yet: zeros, and no last message.
    const before = row(await status(), ids.fhir);
    expect(before).toMatchObject({ name: 'FHIR', type: 'http', status: 'enabled', today: { received: 0, failed: 0, refused: 0 }, lastMessageAt: null, listener: { condition: 'none' } });

    for (const path of ['/fhir/Patient', '/fhir/Observation']) expect((await fetch(`${t.httpUrl}${path}`, { method: 'POST', body: '{}' })).status).toBe(200);
    const sentAt = Date.now();
    expect((await fetch(`${t.httpUrl}/fhir/broken`, { method: 'POST', body: '{}' })).status).toBe(500);
    expect((await fetch(`${t.httpUrl}/locked`)).status).toBe(401);

    const answer = await until('the counts of today', async () => {
      const now = await status();
      return row(now, ids.fhir)?.today.received === 3 && row(now, ids.fhir)?.today.failed === 1 ? now : undefined;
    });
    const fhir = row(answer, ids.fhir);
    const httpsPort = new URL(t.httpsUrl).port;
    const httpPort = new URL(t.httpUrl).port;
    expect(fhir).toMatchObject({ today: { received: 3, failed: 1, refused: 0 }, addresses: [`https://127.0.0.1:${httpsPort}/fhir…`, `http://127.0.0.1:${httpPort}/fhir…`] });
    // The newest transaction is the failed one, sent last.
    expect(Math.abs(Date.parse(fhir?.lastMessageAt ?? '') - sentAt)).toBeLessThan(5_000);
    expect(Date.parse(answer.since)).toBeLessThanOrEqual(Date.now());
    expect(row(answer, ids.locked)).toMatchObject({ today: { received: 0, failed: 0, refused: 1 }, addresses: [`https://127.0.0.1:${httpsPort}/locked`, `http://127.0.0.1:${httpPort}/locked`] });
    expect(row(answer, ids.poll)).toMatchObject({ type: 'polling', addresses: [], listener: { condition: 'none' } });
    const mllpPort = (await t.inject(`/channels/${ids.mllp}`, { headers: admin })).body as { tcpPort: number };
    expect(row(answer, ids.mllp)).toMatchObject({ listener: { condition: 'listening', port: mllpPort.tcpPort }, addresses: [`mllp://127.0.0.1:${mllpPort.tcpPort}`] });
    const notBound = row(answer, ids.busy);
    expect(notBound).toMatchObject({ listener: { condition: 'not-bound', port: taken } });
    expect(notBound?.listener.reason).toMatch(/in use/i);

    // Disabled: not listening, and said why.
    expect((await t.request(`/channels/${ids.mllp}`, { method: 'PUT', headers: admin, json: { status: 'disabled' } })).status).toBe(200);
    expect(row(await status(), ids.mllp)?.listener).toMatchObject({ condition: 'off', reason: 'the channel is disabled' });
    expect((await t.request(`/channels/${ids.mllp}`, { method: 'PUT', headers: admin, json: { status: 'enabled' } })).status).toBe(200);
  });

  it('shows a user only the channels they may view, and refuses callers who are not signed in', async () => {
    const seen = await status(nurse);
    expect(seen.channels.map((c) => c.name)).toEqual(['FHIR']);
    expect(seen.channels[0]?.today.received).toBe(3);
    expect((await t.inject('/channels/status')).status).toBe(401);
    expect((await t.inject('/channels/status?unknown=1', { headers: admin })).status).toBe(400);
  });

  it('checks each route by connecting only: up, refused, an untrusted certificate (trusted once its CA is added), a TLS handshake that never ends', async () => {
    const pair = generateSelfSigned('localhost');
    const secure = await httpsUpstream(pair, (_req, res) => res.end('should not be called'));
    const silent = await silentUpstream();
    const down = await closedPort();
    const before = received.length;
    try {
      const channel = await create({
        name: 'checked',
        urlPattern: '^/checked$',
        routes: [
          { name: 'up', host: '127.0.0.1', port: upstream.port, primary: true },
          { name: 'down', type: 'mllp', host: '127.0.0.1', port: down },
          { name: 'untrusted', host: '127.0.0.1', port: secure.port, secured: true },
          { name: 'no handshake', type: 'mllp', host: '127.0.0.1', port: silent.port, secured: true, status: 'disabled' },
        ],
      });
      const check = async () => {
        const res = await t.request(`/channels/${channel._id}/check-routes`, { method: 'POST', headers: { ...admin, ...MARKER } });
        expect(res.status, res.text).toBe(200);
        return res.body as RouteCheckAnswer;
      };
      const first = await check();
      expect(first.ok).toBe(false);
      const [up, refused, untrusted, noHandshake] = first.routes;
      expect(up).toMatchObject({ name: 'up', outcome: 'ok', target: `http://127.0.0.1:${upstream.port}`, enabled: true, message: 'connected' });
      expect(refused).toMatchObject({ name: 'down', outcome: 'refused', target: `mllp://127.0.0.1:${down}` });
      expect(refused?.message).toContain(`nothing is listening on 127.0.0.1:${down}`);
      expect(untrusted).toMatchObject({ name: 'untrusted', outcome: 'certificate', target: `https://127.0.0.1:${secure.port}` });
      expect(untrusted?.message).toContain('not trusted');
      expect(noHandshake).toMatchObject({ outcome: 'timeout', enabled: false, target: `mllp://127.0.0.1:${silent.port} (TLS)` });
      expect(noHandshake?.message).toContain('the TLS handshake did not finish within 300 ms');
      expect(noHandshake?.ms).toBeLessThan(5_000);

      // The route's trust is the senders' trust: the CA added to the keystore makes the certificate trusted.
      expect((await t.request('/keystore/ca/cert', { method: 'POST', headers: admin, json: { cert: pair.cert } })).status).toBe(201);
      const second = await check();
      expect(second.routes[2]).toMatchObject({ outcome: 'ok', message: 'connected; the TLS handshake succeeded and the certificate is trusted' });
      // Nothing was sent to any route: the connections carried no request.
      expect(received.length).toBe(before);

      expect((await t.inject(`/channels/${channel._id}/check-routes`, { method: 'POST', headers: { ...nurse, ...MARKER } })).status).toBe(403);
      expect((await t.inject(`/channels/${channel._id}/check-routes`, { method: 'POST', headers: MARKER })).status).toBe(401);
      expect((await t.inject('/channels/0123456789abcdef01234567/check-routes', { method: 'POST', headers: { ...admin, ...MARKER } })).status).toBe(404);
      expect(t.logs.some((l) => l.msg === 'channel routes checked' && l.channel === 'checked')).toBe(true);
    } finally {
      await secure.close();
      await silent.close();
    }
  });

  it('sends a test message through an MLLP channel as a real transaction marked as a test', async () => {
    const message = adt('TEST-MSG-1');
    const res = await t.request(`/channels/${ids.mllp}/test-message`, { method: 'POST', headers: admin, json: { body: message } });
    expect(res.status, res.text).toBe(200);
    const answer = res.body as TestMessageAnswer;
    expect(answer).toMatchObject({ status: 'Successful', responseStatus: 200 });
    expect(lab.received.at(-1)).toContain('TEST-MSG-1');
    const tx = await completedTransaction(t, answer.transactionId);
    expect(tx).toMatchObject({ channelID: ids.mllp, properties: { test: 'true' } });
    expect(await bodyText(t, tx.request.body)).toBe(message);
    // Found by the property, as the transaction list filters it.
    const listed = await t.inject(`/transactions?filterLimit=10&filters=${encodeURIComponent(JSON.stringify({ properties: { test: 'true' } }))}`, { headers: admin });
    expect((listed.body as { _id: string }[]).map((x) => x._id)).toContain(answer.transactionId);
    expect(t.logs.some((l) => l.msg === 'test message sent through a channel' && l.transactionId === answer.transactionId)).toBe(true);
  });

  it('sends a test body through an http channel to a path it matches, and refuses what a sender could not send', async () => {
    const body = '{"resourceType":"Patient","name":[{"family":"Test"}]}';
    const sent = await t.request(`/channels/${ids.fhir}/test-message`, { method: 'POST', headers: admin, json: { body, path: '/fhir/Patient', contentType: 'application/fhir+json' } });
    expect(sent.status, sent.text).toBe(200);
    const answer = sent.body as TestMessageAnswer;
    expect(answer).toMatchObject({ status: 'Successful', responseStatus: 200 });
    expect(received.at(-1)).toEqual({ path: '/fhir/Patient', body });
    const tx = await completedTransaction(t, answer.transactionId);
    expect(tx).toMatchObject({ properties: { test: 'true' }, request: { method: 'POST', path: '/fhir/Patient' } });
    expect(tx.request.headers['content-type']).toBe('application/fhir+json');

    const wrongPath = await t.request(`/channels/${ids.fhir}/test-message`, { method: 'POST', headers: admin, json: { body, path: '/other' } });
    expect(wrongPath.status).toBe(400);
    expect(wrongPath.text).toContain("does not match the channel's URL pattern ^/fhir(/.*)?$");
    expect((await t.request(`/channels/${ids.poll}/test-message`, { method: 'POST', headers: admin, json: { body: 'x' } })).status).toBe(400);
    expect((await t.request(`/channels/${ids.fhir}/test-message`, { method: 'POST', headers: nurse, json: { body, path: '/fhir/Patient' } })).status).toBe(403);
    expect((await t.request(`/channels/${ids.fhir}/test-message`, { method: 'POST', headers: admin, json: { body, path: '/fhir/Patient', extra: 1 } })).status).toBe(400);
    expect((await t.request(`/channels/${ids.locked}`, { method: 'PUT', headers: admin, json: { status: 'disabled' } })).status).toBe(200);
    const disabled = await t.request(`/channels/${ids.locked}/test-message`, { method: 'POST', headers: admin, json: { body: 'x', path: '/locked' } });
    expect(disabled.status).toBe(409);
    expect(disabled.text).toContain('is disabled');
  });
});
