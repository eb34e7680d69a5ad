import { connect } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';

const JWT_SECRET = 'pipeline-test-jwt-secret-0123456789';

interface Seen {
  path: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

describe('the HTTP transaction pipeline, against real upstream servers', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  const upstreams: Record<string, Upstream> = {};
  const seen: Record<string, Seen[]> = {};

  function recording(name: string, status: number, body: (s: Seen) => string, contentType = 'application/json'): Promise<Upstream> {
    seen[name] = [];
    return httpUpstream((req, res) => {
      void readBody(req).then((text) => {
        const s = { path: req.url ?? '', body: text, headers: req.headers };
        seen[name]?.push(s);
        res.writeHead(status, { 'content-type': contentType });
        res.end(body(s));
      });
    });
  }

  async function channel(body: Record<string, unknown>): Promise<string> {
    const res = await t.request('/channels', { method: 'POST', headers: admin, json: body });
    if (res.status !== 201) throw new Error(`channel: ${res.status} ${res.text}`);
    return (res.body as { _id: string })._id;
  }

  const route = (name: string, upstream: Upstream, extra: Record<string, unknown> = {}) => ({ name, host: '127.0.0.1', port: upstream.port, ...extra });

  const transaction = (id: string | null): Promise<TransactionRecord> => completedTransaction(t, id);

  beforeAll(async () => {
    t = await startJunction({
      authentication: { enableCustomTokenAuthentication: true, enableJWTAuthentication: true, jwt: { secretOrPublicKey: JWT_SECRET, algorithms: ['HS256'] } },
      router: { maxBodyBytes: 4096 },
    });
    admin = { authorization: await unlockRoot(t) };
    upstreams.echo = await recording('echo', 200, (s) => JSON.stringify({ got: s.path, self: `http://127.0.0.1:${upstreams.echo?.port ?? 0}/fhir/Patient/1` }));
    upstreams.ok2 = await recording('ok2', 201, () => '{}');
    upstreams.fail = await recording('fail', 500, () => '{"error":"boom"}');
    upstreams.missing = await recording('missing', 404, () => '{}');
    upstreams.silent = await httpUpstream(() => undefined);
    upstreams.redirect = await httpUpstream((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${upstreams.redirect?.port ?? 0}/moved` });
      res.end();
    });
    upstreams.smallJson = await recording('smallJson', 200, () => JSON.stringify({ href: `http://127.0.0.1:${upstreams.smallJson?.port ?? 0}/fhir/Patient/1` }));
    upstreams.bigJson = await recording('bigJson', 200, () => JSON.stringify({ href: `http://127.0.0.1:${upstreams.bigJson?.port ?? 0}/x`, pad: 'p'.repeat(10_000) }));
    upstreams.patients = await recording('patients', 200, () => '{"which":"patients"}');
    upstreams.anything = await recording('anything', 200, () => '{"which":"anything"}');

    await channel({ name: 'public-echo', urlPattern: '^/echo/.*$', authType: 'public', routes: [route('primary', upstreams.echo, { primary: true }), route('second', upstreams.ok2)] });
    await channel({ name: 'secondary-fails', urlPattern: '^/second-fails$', authType: 'public', routes: [route('p', upstreams.echo, { primary: true }), route('s', upstreams.fail)] });
    await channel({ name: 'primary-fails', urlPattern: '^/primary-fails$', authType: 'public', routes: [route('p', upstreams.fail, { primary: true }), route('s', upstreams.ok2)] });
    await channel({ name: 'not-found', urlPattern: '^/completed$', authType: 'public', routes: [route('p', upstreams.missing, { primary: true })] });
    await channel({ name: 'unreachable', urlPattern: '^/unreachable$', authType: 'public', autoRetryEnabled: true, routes: [{ name: 'p', host: '127.0.0.1', port: 1, primary: true }] });
    await channel({ name: 'silent', urlPattern: '^/silent$', authType: 'public', timeout: 300, routes: [route('p', upstreams.silent, { primary: true })] });
    await channel({ name: 'redirect', urlPattern: '^/redirect$', authType: 'public', rewriteUrls: true, routes: [route('p', upstreams.redirect, { primary: true })] });
    await channel({ name: 'rewrite', urlPattern: '^/rewrite$', authType: 'public', rewriteUrls: true, routes: [route('p', upstreams.smallJson, { primary: true })] });
    await channel({ name: 'rewrite-big', urlPattern: '^/rewrite-big$', authType: 'public', rewriteUrls: true, routes: [route('p', upstreams.bigJson, { primary: true })] });
    await channel({ name: 'private', urlPattern: '^/private$', allow: ['lab-role'], routes: [route('p', upstreams.echo, { primary: true })] });
    await channel({ name: 'patients', urlPattern: '^/fhir$', priority: 1, authType: 'public', matchContentJson: 'resourceType', matchContentValue: 'Patient', routes: [route('p', upstreams.patients, { primary: true })] });
    await channel({ name: 'xml-lab', urlPattern: '^/fhir$', priority: 2, authType: 'public', matchContentXpath: 'string(/order/@kind)', matchContentValue: 'lab', routes: [route('p', upstreams.patients, { primary: true })] });
    await channel({ name: 'regex-adt', urlPattern: '^/fhir$', priority: 3, authType: 'public', matchContentRegex: '^MSH\\|.*ADT', routes: [route('p', upstreams.patients, { primary: true })] });
    await channel({ name: 'no-bodies', urlPattern: '^/no-bodies$', authType: 'public', requestBody: false, responseBody: false, routes: [route('p', upstreams.echo, { primary: true, username: 'svc', password: 'svc-pass' })] });
    await channel({ name: 'fhir-fallback', urlPattern: '^/fhir$', priority: 9, authType: 'public', routes: [route('p', upstreams.anything, { primary: true })] });

    const client = await t.request('/clients', {
      method: 'POST',
      headers: admin,
      json: { clientID: 'lab', name: 'Lab system', roles: ['lab-role'], password: 'lab-client-pass-1', customTokenID: 'lab-custom-token-0123456789' },
    });
    expect(client.status).toBe(201);
  });

  afterAll(async () => {
    await t.destroy();
    for (const upstream of Object.values(upstreams)) await upstream.close();
  });

  it('routes to the primary and the secondary, answers with the primary, and stores a Successful transaction', async () => {
    const res = await fetch(`${t.httpUrl}/echo/Patient?x=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Thandi"}' });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-openhim-transactionid');
    expect(await res.json()).toMatchObject({ got: '/echo/Patient?x=1' });
    expect(seen.ok2?.at(-1)?.body).toBe('{"name":"Thandi"}');
    expect(seen.echo?.at(-1)?.headers['x-openhim-transactionid']).toBe(id);
    expect(seen.echo?.at(-1)?.headers['x-forwarded-for']).toBe('127.0.0.1');
    const tx = await transaction(id);
    expect(tx).toMatchObject({ status: 'Successful', canRerun: true, request: { method: 'POST', path: '/echo/Patient', querystring: 'x=1' }, response: { status: 200 } });
    expect(tx.routes).toMatchObject([{ name: 'second', response: { status: 201 } }]);
    expect(tx.request.body).toBeDefined();
    expect(await t.junction.bodies.readText(tx.request.body ?? { path: '' })).toBe('{"name":"Thandi"}');
    expect(await t.junction.bodies.readText(tx.response?.body ?? { path: '' })).toContain('/echo/Patient?x=1');
  });

  it('reaches every status of the SPEC table', async () => {
    const statusOf = async (path: string) => {
      const res = await fetch(`${t.httpUrl}${path}`);
      await res.arrayBuffer();
      return (await transaction(res.headers.get('x-openhim-transactionid'))).status;
    };
    expect(await statusOf('/second-fails')).toBe('Completed with error(s)');
    expect(await statusOf('/primary-fails')).toBe('Failed');
    expect(await statusOf('/completed')).toBe('Completed');
    // Processing is the state between the two writes; a transaction whose primary never answers stays in it until then.
    const pending = fetch(`${t.httpUrl}/silent`);
    let processing: TransactionRecord[] = [];
    for (let i = 0; i < 50 && processing.length === 0; i++) {
      processing = await t.junction.transactions.page({ status: ['Processing'] }, { limit: 5 });
      if (processing.length === 0) await new Promise((r) => setTimeout(r, 10));
    }
    expect(processing).toHaveLength(1);
    const res = await pending;
    expect(res.status).toBe(504);
    expect((await transaction(res.headers.get('x-openhim-transactionid'))).status).toBe('Failed');
  });

  it('answers an unreachable route with 500 in the JSON error shape and queues it for auto retry', async () => {
    const res = await fetch(`${t.httpUrl}/unreachable`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { code: 'ROUTE_FAILED' } });
    const tx = await transaction(res.headers.get('x-openhim-transactionid'));
    expect(tx).toMatchObject({ status: 'Failed', autoRetry: true });
    expect(tx.error?.message).toMatch(/could not be reached/);
  });

  it('answers 404 when no channel matches and 401 with a Basic challenge when a private channel has no client', async () => {
    const none = await fetch(`${t.httpUrl}/nowhere`);
    expect(none.status).toBe(404);
    expect(await none.json()).toMatchObject({ error: { code: 'CHANNEL_NOT_FOUND' } });
    const anonymous = await fetch(`${t.httpUrl}/private`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('admits the client on the private channel by Basic auth, custom token and JWT, and refuses bad credentials', async () => {
    expect((await fetch(`${t.httpUrl}/private`, { headers: { authorization: basic('lab', 'lab-client-pass-1') } })).status).toBe(200);
    expect((await fetch(`${t.httpUrl}/private`, { headers: { authorization: 'Custom lab-custom-token-0123456789' } })).status).toBe(200);
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('lab').setExpirationTime('1m').sign(new TextEncoder().encode(JWT_SECRET));
    expect((await fetch(`${t.httpUrl}/private`, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(200);
    const wrong = await fetch(`${t.httpUrl}/private`, { headers: { authorization: basic('lab', 'wrong-password') } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'CLIENT_UNAUTHENTICATED' } });
    // The client's credentials were not passed downstream.
    expect(seen.echo?.at(-1)?.headers.authorization).toBeUndefined();
    const audits = await t.junction.audits.page({ userID: 'lab', eventOutcomeIndicator: '4' }, { skip: 0, limit: 10_000 });
    expect(audits.length).toBeGreaterThan(0);
  });

  it('matches bodies by JSON, XPath and regex by priority, falling back when none match', async () => {
    const which = async (body: string, type: string) => {
      const res = await fetch(`${t.httpUrl}/fhir`, { method: 'POST', headers: { 'content-type': type }, body });
      const tx = await transaction(res.headers.get('x-openhim-transactionid'));
      const channel = await t.junction.store.channels.findById(tx.channelID);
      return channel?.name;
    };
    expect(await which('{"resourceType":"Patient"}', 'application/json')).toBe('patients');
    expect(await which('<order kind="lab"/>', 'application/xml')).toBe('xml-lab');
    expect(await which('MSH|^~\\&|A|B|ADT^A01', 'text/plain')).toBe('regex-adt');
    expect(await which('{"resourceType":"Encounter"}', 'application/json')).toBe('fhir-fallback');
  });

  it('stores a body longer than the cap truncated and marks the transaction not re-runnable', async () => {
    const big = 'x'.repeat(10_000);
    const res = await fetch(`${t.httpUrl}/echo/big`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: big });
    expect(res.status).toBe(200);
    expect(seen.ok2?.at(-1)?.body).toHaveLength(10_000);
    const tx = await transaction(res.headers.get('x-openhim-transactionid'));
    expect(tx.request.body).toMatchObject({ size: 4096, receivedBytes: 10_000, truncated: true });
    expect(tx.canRerun).toBe(false);
  });

  it('passes a redirect back, with its Location rewritten to Junction', async () => {
    const res = await fetch(`${t.httpUrl}/redirect`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${t.httpUrl}/moved`);
  });

  it('emits started and completed events for the live feed', async () => {
    const seenEvents: string[] = [];
    const onStart = (e: { transactionId: string }) => seenEvents.push(`started:${e.transactionId}`);
    const onDone = (e: { transactionId: string; status: string }) => seenEvents.push(`completed:${e.transactionId}:${e.status}`);
    t.junction.events.on('transaction.started', onStart);
    t.junction.events.on('transaction.completed', onDone);
    try {
      const res = await fetch(`${t.httpUrl}/echo/events`);
      await res.arrayBuffer();
      const id = res.headers.get('x-openhim-transactionid') ?? '';
      const tx = await transaction(id);
      // A GET has no body, so no body file was made for it.
      expect(tx.request.body).toBeUndefined();
      // The completion event follows the second write.
      for (let i = 0; i < 100 && !seenEvents.some((e) => e.startsWith(`completed:${id}`)); i++) await new Promise((r) => setTimeout(r, 10));
      expect(seenEvents.filter((e) => e.includes(id))).toEqual([`started:${id}`, `completed:${id}:Successful`]);
    } finally {
      t.junction.events.off('transaction.started', onStart);
      t.junction.events.off('transaction.completed', onDone);
    }
  });

  it('keeps a deleted channel that has transactions, marked deleted, and never matches it again', async () => {
    const channels = await t.junction.store.channels.find({ name: 'public-echo' });
    const id = channels[0]?._id ?? '';
    const removed = await t.request(`/channels/${id}`, { method: 'DELETE', headers: admin });
    expect(removed.status).toBe(200);
    expect(await t.junction.store.channels.findById(id)).toMatchObject({ status: 'deleted' });
    // Still shown, as in OpenHIM, so its transactions' channel can be read and restored.
    expect((await t.request(`/channels/${id}`, { headers: admin })).body).toMatchObject({ _id: id, status: 'deleted' });
    expect((await fetch(`${t.httpUrl}/echo/after-delete`)).status).toBe(404);
  });

  it('honours requestBody/responseBody = false, and sends the route\'s own Basic credentials downstream', async () => {
    const res = await fetch(`${t.httpUrl}/no-bodies`, { method: 'POST', headers: { 'content-type': 'text/plain', authorization: 'Custom lab-custom-token-0123456789' }, body: 'secret clinical note' });
    expect(res.status).toBe(200);
    expect(seen.echo?.at(-1)?.body).toBe('secret clinical note');
    expect(seen.echo?.at(-1)?.headers.authorization).toBe(`Basic ${Buffer.from('svc:svc-pass').toString('base64')}`);
    const tx = await transaction(res.headers.get('x-openhim-transactionid'));
    expect(tx.request.body).toBeUndefined();
    expect(tx.response?.body).toBeUndefined();
    // A POST whose body was not stored cannot be re-run.
    expect(tx.canRerun).toBe(false);
    expect(JSON.stringify(tx)).not.toContain('secret clinical note');
    expect(tx.request.headers.authorization).toBe('********');
  });

  // 100,000 bytes streams to the routes; 1,000 takes the small-body path, which reads the body whole first.
  it.each([100_000, 1000])('marks the transaction Failed when the client hangs up mid-upload (declared %i bytes), instead of leaving it Processing', async (declared) => {
    const url = new URL(t.httpUrl);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST /second-fails HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${declared}\r\n\r\nonly a little`);
    let processing: TransactionRecord[] = [];
    for (let i = 0; i < 200 && processing.length === 0; i++) {
      processing = (await t.junction.transactions.page({ path: '^/second-fails$' }, { limit: 1 })).filter((tx) => tx.status === 'Processing');
      if (processing.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(processing).toHaveLength(1);
    socket.destroy();
    const tx = await transaction(processing[0]?._id ?? null);
    expect(tx.status).toBe('Failed');
  });

  it('answers a client that sends Expect: 100-continue, without passing the expectation downstream', async () => {
    const url = new URL(t.httpUrl);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.write('POST /second-fails HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n');
    for (let i = 0; i < 200 && !received.includes('100 Continue'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toContain('HTTP/1.1 100 Continue');
    socket.write('{"a":"exp"}');
    for (let i = 0; i < 300 && !/HTTP\/1\.1 200/.test(received); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.destroy();
    expect(received).toMatch(/HTTP\/1\.1 200 OK/);
    expect(seen.echo?.at(-1)?.body).toBe('{"a":"exp"}');
    expect(seen.echo?.at(-1)?.headers.expect).toBeUndefined();
  });

  it('keeps a POST that sent no body re-runnable, and one whose body was not stored not re-runnable', async () => {
    const empty = await fetch(`${t.httpUrl}/second-fails`, { method: 'POST', headers: { 'content-length': '0' } });
    expect(empty.status).toBe(200);
    expect(await transaction(empty.headers.get('x-openhim-transactionid'))).toMatchObject({ canRerun: true });
    const unstored = await fetch(`${t.httpUrl}/no-bodies`, { method: 'POST', body: '{"kept":false}' });
    expect(unstored.status).toBe(200);
    expect(await transaction(unstored.headers.get('x-openhim-transactionid'))).toMatchObject({ canRerun: false });
  });

  it('rewrites URLs in a JSON body within the cap, and passes a longer body through unchanged', async () => {
    const small = (await (await fetch(`${t.httpUrl}/rewrite`)).json()) as { href: string };
    expect(small.href).toBe(`${t.httpUrl}/fhir/Patient/1`);
    const res = await fetch(`${t.httpUrl}/rewrite-big`);
    const big = (await res.json()) as { href: string; pad: string };
    expect(big.href).toBe(`http://127.0.0.1:${upstreams.bigJson?.port ?? 0}/x`);
    expect(big.pad).toHaveLength(10_000);
    const tx = await transaction(res.headers.get('x-openhim-transactionid'));
    // The stored copy is capped like any other body, while the client got all of it.
    expect(tx.response?.body).toMatchObject({ size: 4096, truncated: true });
  });
});
