/**
 * OpenHIM compatibility: the channel routes as OpenHIM's integration tests (test/integration/channelsAPITests.js)
 * and its console (channelsmodal.js, channel-tabs/routes.js) call them: bodies, status codes, field names, the
 * document round trip, the console's new-channel defaults, a foreign `_id`, `whitelist`, Kafka routes and the
 * change history (`GET /channels/:id/audits`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompat } from './openhim-caller.js';
import type { Caller, CompatJunction } from './openhim-caller.js';

interface Channel {
  _id: string;
  name: string;
  routes: Record<string, unknown>[];
  [key: string]: unknown;
}

interface Audit {
  _id: string;
  ref: string;
  date: string;
  updatedBy: { name: string };
  ops: { op: string; path: string; value?: unknown }[];
}

/** OpenHIM's integration-test channel. */
const testChannel = (name: string): Record<string, unknown> => ({
  name,
  urlPattern: 'test/sample',
  allow: ['PoC', 'Test1', 'Test2'],
  routes: [{ name: 'test route', host: 'localhost', port: 9876, primary: true }],
});

/** A route as OpenHIM's console builds it (routes.js `newRoute`), filled in by a user. */
const consoleRoute = (name: string, primary: boolean): Record<string, unknown> => ({
  name,
  secured: false,
  host: 'localhost',
  port: 9877,
  path: '',
  pathTransform: '',
  primary,
  username: '',
  password: '',
  type: 'http',
  status: 'enabled',
  forwardAuthHeader: false,
  kafkaClientId: '',
  kafkaBrokers: '',
  kafkaTopic: '',
  waitPrimaryResponse: false,
  statusCodesCheck: '',
});

/** A new channel as OpenHIM's console saves it (basic-info defaults, nulls for unused fields, methods ticked). */
const consoleChannel = (name: string): Record<string, unknown> => ({
  type: 'http',
  authType: 'private',
  status: 'enabled',
  name,
  urlPattern: '^/console/.*$',
  methods: ['GET', 'POST'],
  allow: ['PoC'],
  whitelist: [],
  routes: [consoleRoute('primary', true)],
  requestBody: true,
  responseBody: true,
  rewriteUrlsConfig: [],
  rewriteUrls: false,
  addAutoRewriteRules: true,
  autoRetryEnabled: true,
  autoRetryPeriodMinutes: 60,
  autoRetryMaxAttempts: 0,
  matchContentRegex: null,
  matchContentXpath: null,
  matchContentJson: null,
  matchContentValue: null,
  pollingSchedule: null,
  tcpHost: null,
  tcpPort: null,
});

describe('OpenHIM compatibility: channels', () => {
  let c: CompatJunction;
  let root: Caller;
  let nonAdmin: Caller;

  beforeAll(async () => {
    c = await startCompat();
    root = c.root;
    nonAdmin = await c.user('nonroot@compat.example', ['group1']);
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('POST /channels answers 201; GET /channels and GET /channels/:id show it; a non-admin sees only channels of its groups', async () => {
    const created = await root.post('/channels', testChannel('TestChannel1'));
    expect(created.status).toBe(201);
    const visible = await root.post('/channels', { ...testChannel('TestChannel2'), txViewAcl: ['group1'] });
    expect(visible.status).toBe(201);
    const id = (created.body as Channel)._id;
    expect((await root.get(`/channels/${id}`)).body).toMatchObject({ name: 'TestChannel1', urlPattern: 'test/sample', allow: ['PoC', 'Test1', 'Test2'], whitelist: [] });
    expect(((await nonAdmin.get('/channels')).body as Channel[]).map((ch) => ch.name)).toEqual(['TestChannel2']);
    expect((await nonAdmin.get(`/channels/${id}`)).status).toBe(403);
    // OpenHIM's tests send {}; Junction checks a body's shape before the caller's rights (400), so real bodies are sent.
    expect((await nonAdmin.post('/channels', testChannel('NotAllowed'))).status).toBe(403);
    expect((await nonAdmin.put(`/channels/${id}`, { urlPattern: 'x' })).status).toBe(403);
    expect((await c.caller({}).get('/channels')).status).toBe(401);
  });

  it('refuses what OpenHIM refuses with 400: no name, no primary route, two primaries, priority below 1, a bad pathTransform', async () => {
    const { name: _n, ...noName } = testChannel('x');
    expect((await root.post('/channels', noName)).status).toBe(400);
    expect((await root.post('/channels', { ...testChannel('NoPrimary'), routes: [{ name: 'r', host: 'localhost', port: 9876 }] })).status).toBe(400);
    const two = [1, 2].map((n) => ({ name: `r${n}`, host: 'localhost', port: 9876, primary: true }));
    expect((await root.post('/channels', { ...testChannel('TwoPrimaries'), routes: two })).status).toBe(400);
    expect((await root.post('/channels', { ...testChannel('Priority'), priority: -1 })).status).toBe(400);
    expect((await root.post('/channels', { ...testChannel('BadTransform'), routes: [{ name: 'r', host: 'localhost', port: 9876, primary: true, pathTransform: 'invalid' }] })).status).toBe(400);
    // A disabled second primary is fine.
    expect((await root.post('/channels', { ...testChannel('DisabledPrimary'), routes: [...two.slice(0, 1), { ...two[1], status: 'disabled' }] })).status).toBe(201);
  });

  it('creates a channel from the console defaults (nulls, empty route texts, kafkaBrokers) with 201 and OpenHIM field names', async () => {
    const res = await root.post('/channels', consoleChannel('FromConsole'));
    expect(res.status).toBe(201);
    const channel = res.body as Channel;
    expect(channel).toMatchObject({ whitelist: [], autoRetryMaxAttempts: 0, methods: ['GET', 'POST'] });
    expect(channel).not.toHaveProperty('whitelistedIPs');
    expect(channel).not.toHaveProperty('matchContentRegex');
    expect(channel.routes[0]).toMatchObject({ name: 'primary', waitPrimaryResponse: false, type: 'http' });
    for (const unset of ['path', 'pathTransform', 'username', 'password', 'statusCodesCheck', 'kafkaClientId', 'kafkaTopic', 'kafkaBrokers']) expect(channel.routes[0]).not.toHaveProperty(unset);
  });

  it('accepts a channel sent back as it was fetched (GET then PUT) with 200 and leaves it unchanged', async () => {
    const made = await root.post('/channels', {
      ...consoleChannel('RoundTrip'),
      description: 'round trip',
      whitelist: ['10.0.0.7'],
      routes: [{ ...consoleRoute('primary', true), username: 'svc', password: 'route-secret' }, { ...consoleRoute('audit copy', false), waitPrimaryResponse: true, statusCodesCheck: '2**,404', kafkaTopic: 'kept' }],
    });
    expect(made.status).toBe(201);
    const id = (made.body as Channel)._id;
    const fetched = (await root.get(`/channels/${id}`)).body as Channel;
    expect(fetched.routes[1]).toMatchObject({ waitPrimaryResponse: true, statusCodesCheck: '2**,404', kafkaTopic: 'kept' });
    const put = await root.put(`/channels/${id}`, fetched);
    expect(put.status).toBe(200);
    const again = (await root.get(`/channels/${id}`)).body as Channel;
    const { updatedAt: _a, ...before } = fetched;
    const { updatedAt: _b, ...after } = again;
    expect(after).toEqual(before);
    // The console's save: the fetched document with OpenHIM's read-only fields and '' for unused texts.
    const consoleSave = await root.put(`/channels/${id}`, { ...fetched, __v: 0, lastBodyCleared: '2024-01-01T00:00:00.000Z', matchContentRegex: '', description: '' });
    expect(consoleSave.status).toBe(200);
    expect(consoleSave.body).not.toHaveProperty('description');
    // A field that is truly unknown, or of the wrong type, is still refused.
    expect((await root.put(`/channels/${id}`, { ...fetched, notAField: 1 })).status).toBe(400);
    expect((await root.put(`/channels/${id}`, { ...fetched, whitelist: 'x' })).status).toBe(400);
  });

  it('PUT /channels/:id ignores another _id in the body: the URL names the channel, as in OpenHIM', async () => {
    const a = (await root.post('/channels', testChannel('ForeignA'))).body as Channel;
    const b = (await root.post('/channels', testChannel('ForeignB'))).body as Channel;
    const res = await root.put(`/channels/${a._id}`, { _id: b._id, urlPattern: 'test/changed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: a._id, name: 'ForeignA', urlPattern: 'test/changed' });
    expect((await root.get(`/channels/${b._id}`)).body).toMatchObject({ urlPattern: 'test/sample' });
    expect((await root.put(`/channels/${a._id}`, { _id: 'thisShouldBeIgnored', allow: ['another'] })).status).toBe(200);
  });

  it('stores whitelist, and still reads Junction\'s earlier whitelistedIPs on input', async () => {
    const res = await root.post('/channels', { ...testChannel('Whitelisted'), whitelist: ['192.168.1.10'] });
    expect(res.body).toMatchObject({ whitelist: ['192.168.1.10'] });
    const legacy = await root.post('/channels', { ...testChannel('LegacyName'), whitelistedIPs: ['10.1.1.1'] });
    expect(legacy.status).toBe(201);
    expect(legacy.body).toMatchObject({ whitelist: ['10.1.1.1'] });
    expect(legacy.body).not.toHaveProperty('whitelistedIPs');
    const bad = await root.post('/channels', { ...testChannel('BadAddress'), whitelist: ['not-an-ip'] });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('body.whitelist.0');
  });

  it('refuses a Kafka route with a clear 400 until Kafka is supported', async () => {
    const res = await root.post('/channels', { ...consoleChannel('Kafka'), routes: [consoleRoute('primary', true), { ...consoleRoute('kafka', false), type: 'kafka', kafkaTopic: 'events', kafkaClientId: 'junction' }] });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Kafka routes are not supported yet');
  });

  it('GET /channels/:id/audits answers the change history newest first, passwords masked, admins only', async () => {
    const made = await root.post('/channels', { ...testChannel('Audited'), routes: [{ name: 'test route', host: 'localhost', port: 9876, primary: true, username: 'u', password: 'secret-one' }] });
    const id = (made.body as Channel)._id;
    expect((await root.put(`/channels/${id}`, { urlPattern: 'test/changed' })).status).toBe(200);
    expect((await root.put(`/channels/${id}`, { routes: [{ name: 'test route', host: 'localhost', port: 9876, primary: true, username: 'u', password: 'secret-two' }] })).status).toBe(200);
    const res = await root.get(`/channels/${id}/audits`);
    expect(res.status).toBe(200);
    const audits = res.body as Audit[];
    expect(audits).toHaveLength(3);
    expect(audits.every((a) => a.ref === id && typeof a._id === 'string' && a.updatedBy.name.length > 0 && !Number.isNaN(Date.parse(a.date)))).toBe(true);
    const [passwordChange, urlChange, creation] = audits;
    expect(urlChange?.ops).toEqual([{ op: 'replace', path: '/urlPattern', value: 'test/changed' }]);
    expect(passwordChange?.ops).toEqual([{ op: 'replace', path: '/routes/0/password', value: '********' }]);
    expect(creation?.ops).toContainEqual({ op: 'add', path: '/name', value: 'Audited' });
    expect(res.text).not.toContain('secret-one');
    expect(res.text).not.toContain('secret-two');

    expect((await nonAdmin.get(`/channels/${id}/audits`)).status).toBe(403);
    expect((await root.get('/channels/59f6d57b07552f280271efac/audits')).body).toEqual([]);

    expect((await root.delete(`/channels/${id}`)).status).toBe(200);
    const afterDelete = (await root.get(`/channels/${id}/audits`)).body as Audit[];
    expect(afterDelete).toHaveLength(4);
    expect(afterDelete[0]?.ops).toContainEqual({ op: 'remove', path: '/name' });
  });

  it('POST /channels/:id/trigger with the console\'s {_id} body fires a polling channel now (200); 404 unknown; 403 non-admin', async () => {
    const made = await root.post('/channels', {
      name: 'Poller',
      type: 'polling',
      urlPattern: '^/trigger$',
      pollingSchedule: '1 days',
      authType: 'public',
      routes: [{ name: 'target', host: '127.0.0.1', port: 9, primary: true }],
    });
    expect(made.status).toBe(201);
    const id = (made.body as Channel)._id;
    const fired = await root.post(`/channels/${id}/trigger`, { _id: id });
    expect(fired.status).toBe(200);
    expect((fired.body as { transactionId: string }).transactionId).toMatch(/^[0-9a-f]{24}$/);
    expect((await root.post('/channels/59f6d57b07552f280271efac/trigger', { _id: '59f6d57b07552f280271efac' })).status).toBe(404);
    expect((await nonAdmin.post(`/channels/${id}/trigger`, { _id: id })).status).toBe(403);
  });
});
