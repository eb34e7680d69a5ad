/**
 * Regression tests of issue 12 items 5, 6 and 7: each input below got a 5xx, an answer in Fastify's or ws's own
 * format, or was stored garbled. Each must now be a 4xx in the one error shape, and write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { rawRequest, upgradeRequest } from './raw-http.js';
import type { RawAnswer } from './raw-http.js';
import { storeSnapshot } from './store-snapshot.js';

const user = { email: 'dan@clinic.example', firstname: 'Dan', surname: 'Doctor', groups: ['doctors'], password: 'dan-password-12' };
const channel = { name: 'lab results', urlPattern: '^/lab$', routes: [{ name: 'lab', host: '127.0.0.1', port: 7001, primary: true }] };
const HEX_ID = 'a'.repeat(24);

function deeplyNested(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** Asserts the one error shape with the given status and code; returns the first problem's path when there is one. */
function expectError(res: TestResponse | RawAnswer, status: number, code: string): string | undefined {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error: { code, message: expect.any(String) as string } } });
  const details = (res.body as { error: { details: unknown } }).error.details;
  return Array.isArray(details) ? (details[0] as { path: string }).path : undefined;
}

describe('bad input gets a 4xx in the one error shape and writes nothing', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let channelId: string;
  let before: string;

  beforeAll(async () => {
    t = await startJunction({}, { consoleDir: null });
    admin = { authorization: await unlockRoot(t) };
    expect((await t.request('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
    const created = await t.request('/channels', { method: 'POST', headers: admin, json: channel });
    expect(created.status).toBe(201);
    channelId = (created.body as { _id: string })._id;
    before = await storeSnapshot(t);
  });
  afterAll(async () => t.destroy());

  const send = (method: string, path: string, body: string | Buffer) =>
    t.request(path, { method, headers: { ...admin, 'content-type': 'application/json' }, body });

  describe('item 5: a 400 that names the problem, never a 5xx', () => {
    it('refuses settings nested 10,000 levels deep on POST /users and PUT /users/:email', async () => {
      const created = await send('POST', '/users', `{"email":"eve@clinic.example","firstname":"Eve","surname":"E","groups":["x"],"password":"eve-password-12","settings":${deeplyNested(10_000)}}`);
      expect(expectError(created, 400, 'VALIDATION_FAILED')).toMatch(/^body\.settings\.a/);
      expect((created.body as { error: { message: string } }).error.message).toMatch(/nested too deeply/);
      const updated = await send('PUT', `/users/${user.email}`, `{"settings":${deeplyNested(10_000)}}`);
      expect(expectError(updated, 400, 'VALIDATION_FAILED')).toMatch(/^body\.settings\.a/);
    });

    // As JSON text: JSON.stringify cannot write 1e309, which JSON.parse reads as Infinity.
    const badSettings: [string, string, string][] = [
      ['a key starting with $', '{"$where":1}', 'body.settings.$where'],
      ['a key with a dot', '{"a.b":1}', 'body.settings.a.b'],
      ['a nested key starting with $', '{"list":{"$set":{"x":1}}}', 'body.settings.list.$set'],
      ['an Infinity', '{"list":[1e309]}', 'body.settings.list.0'],
    ];
    for (const [name, settings, path] of badSettings) {
      it(`refuses ${name} in user settings on POST and PUT`, async () => {
        const created = `${JSON.stringify({ ...user, email: 'eve@clinic.example' }).slice(0, -1)},"settings":${settings}}`;
        expect(expectError(await send('POST', '/users', created), 400, 'VALIDATION_FAILED')).toBe(path);
        expect(expectError(await send('PUT', `/users/${user.email}`, `{"settings":${settings}}`), 400, 'VALIDATION_FAILED')).toBe(path);
      });
    }

    it('refuses reserved keys in mediator configuration, transaction properties and bulk re-run filters', async () => {
      expect(expectError(await send('PUT', '/mediators/urn:mediator:lab/config', '{"$where":"1"}'), 400, 'VALIDATION_FAILED')).toBe('body.$where');
      expect(expectError(await send('PUT', '/mediators/urn:mediator:lab/config', '{"codes":{"a.b":"1"}}'), 400, 'VALIDATION_FAILED')).toBe('body.codes.a.b');
      expect(expectError(await send('PUT', `/transactions/${HEX_ID}`, '{"properties":{"$x":"y"}}'), 400, 'VALIDATION_FAILED')).toMatch(/^body\.properties/);
      expect(expectError(await send('POST', '/bulkrerun', `{"filters":${deeplyNested(100)}}`), 400, 'VALIDATION_FAILED')).toMatch(/^body\.filters/);
    });

    const pagedRoutes = ['/transactions', '/transactions/clients/lab', '/tasks', `/tasks/${HEX_ID}`];
    const pages = ['filterPage=1e21', 'filterPage=1e300', 'filterPage=9007199254740991&filterLimit=1000', 'filterPage=Infinity', 'filterLimit=1e309'];
    for (const route of pagedRoutes) {
      it(`refuses pages beyond exact integers on ${route}`, async () => {
        for (const page of pages) {
          const path = expectError(await t.request(`${route}?${page}`, { headers: admin }), 400, 'VALIDATION_FAILED');
          expect(path).toMatch(/^querystring\.filter(Page|Limit)$/);
        }
      });
    }

    it('refuses uptime 1e309 (Infinity) on a mediator heartbeat, and Infinity in any number', async () => {
      expect(expectError(await send('POST', '/mediators/urn:mediator:lab/heartbeat', '{"uptime":1e309}'), 400, 'VALIDATION_FAILED')).toBe('body.uptime');
      expect(expectError(await send('PUT', `/channels/${channelId}`, '{"priority":1e309}'), 400, 'VALIDATION_FAILED')).toBe('body.priority');
      expect(expectError(await send('PUT', `/channels/${channelId}`, '{"priority":1e300}'), 400, 'VALIDATION_FAILED')).toBe('body.priority');
      expect(expectError(await send('PUT', `/channels/${channelId}`, '{"alerts":[{"failureRate":-1e309}]}'), 400, 'VALIDATION_FAILED')).toBe('body.alerts.0.failureRate');
    });
  });

  describe('item 6: every error has the one error shape', () => {
    const routesWithParams = () => t.junction.apiRoutes.filter((r) => r.url.includes(':'));

    it('answers a malformed percent-escape in a path parameter on every route with parameters', async () => {
      expect(routesWithParams().length).toBeGreaterThanOrEqual(27);
      for (const route of routesWithParams()) {
        const url = route.url.replace(/:[A-Za-z]+/g, '%ZZ');
        const res = await t.request(url, { method: route.method, headers: admin, ...(route.method === 'HEAD' || route.method === 'GET' || route.method === 'DELETE' ? {} : { json: {} }) });
        if (route.method === 'HEAD') expect(res.status, url).toBe(400);
        else expect(expectError(res, 400, 'INVALID_URL'), `${route.method} ${url}`).toBeUndefined();
      }
    });

    it('answers a path parameter over 500 characters with 414 on every route with parameters', async () => {
      for (const route of routesWithParams().filter((r) => r.method !== 'HEAD')) {
        const url = route.url.replace(/:[A-Za-z]+/g, 'a'.repeat(501));
        const res = await t.request(url, { method: route.method, headers: admin, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { json: {} }) });
        expectError(res, 414, 'PATH_PARAMETER_TOO_LONG');
      }
    });

    it('answers a 20 KB query string and 20 KB of headers with 431', async () => {
      expectError(await t.request(`/transactions?filters=${'x'.repeat(20_000)}`, { headers: admin }), 431, 'HEADERS_TOO_LARGE');
      expectError(await t.request('/channels', { headers: { ...admin, 'x-padding': 'x'.repeat(20_000) } }), 431, 'HEADERS_TOO_LARGE');
      expectError(await rawRequest(t, 'NOT HTTP AT ALL\r\n\r\n'), 400, 'BAD_REQUEST');
    });

    it('answers /ws upgrades that ws refuses: a POST, a missing key, a wrong version', async () => {
      const post = await rawRequest(t, upgradeRequest({ method: 'POST', authorization: admin.authorization }));
      expectError(post, 405, 'METHOD_NOT_ALLOWED');
      expect(post.headers.allow).toBe('GET');
      expectError(await rawRequest(t, upgradeRequest({ authorization: admin.authorization, headers: { 'sec-websocket-key': null } })), 400, 'BAD_HANDSHAKE');
      const version = await rawRequest(t, upgradeRequest({ authorization: admin.authorization, headers: { 'sec-websocket-version': '7' } }));
      expectError(version, 400, 'BAD_HANDSHAKE');
      expect(version.headers['sec-websocket-version']).toBe('13, 8');
    });
  });

  describe('item 7: invalid UTF-8 is refused', () => {
    const invalid = Buffer.concat([Buffer.from('{"name":"lab '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
    it('refuses a JSON body with invalid UTF-8 bytes, so the channel keeps its name', async () => {
      expectError(await send('PUT', `/channels/${channelId}`, invalid), 400, 'INVALID_UTF8');
      const created = Buffer.concat([Buffer.from(JSON.stringify({ ...channel, name: 'x' }).replace('"x"', '"')), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"')]);
      expectError(await send('POST', '/channels', created), 400, 'INVALID_UTF8');
      const read = await t.request(`/channels/${channelId}`, { headers: admin });
      expect((read.body as { name: string }).name).toBe(channel.name);
    });
  });

  it('wrote no record and logged no 5xx', async () => {
    expect(await storeSnapshot(t)).toBe(before);
    expect(t.logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });

  describe('what stays accepted', () => {
    it('still accepts UTF-8 text, a byte order mark, and still refuses prototype keys', async () => {
      const renamed = await send('PUT', `/channels/${channelId}`, Buffer.from('\uFEFF{"name":"Laboratoire é 🧪"}', 'utf8'));
      expect(renamed.status).toBe(200);
      expect((renamed.body as { name: string }).name).toBe('Laboratoire é 🧪');
      expectError(await send('PUT', `/channels/${channelId}`, '{"__proto__":{"name":"x"}}'), 400, 'INVALID_JSON');
    });

    it('still accepts settings within the rules and the largest page', async () => {
      const settings = { list: { tabview: 'grid', columns: ['a', 'b'] }, filter: { limit: 100, status: null } };
      const updated = await t.request(`/users/${user.email}`, { method: 'PUT', headers: admin, json: { settings } });
      expect(updated.status).toBe(200);
      expect((updated.body as { settings: unknown }).settings).toEqual(settings);
      expect((await t.request('/transactions?filterPage=9007199254740&filterLimit=1000', { headers: admin })).body).toEqual([]);
    });
  });
});
