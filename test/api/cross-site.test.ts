/**
 * Requests other sites' pages make a browser send with the admin's credentials (issue 33, part 3): refused over
 * real HTTPS, while the console's own calls, a console named in `api.corsOrigins`, a console behind a reverse proxy
 * and scripts that send no Origin keep working. Browsers are not challenged with `WWW-Authenticate: Basic`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { basic, NEW_ROOT_PASSWORD, ROOT_EMAIL, sessionCookie, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';

const EVIL = 'https://evil.example';
const CONSOLE = 'https://console.example:9000';
const group = (name: string) => ({ group: name, users: [{ user: 'nurse@clinic.example', method: 'email', maxAlerts: 'no max' }] });

/** The answer to a websocket handshake on /ws with these headers: 101, or the refusal's status and body. */
function handshake(t: TestJunction, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.url.replace(/^https/, 'wss')}/ws`, { headers, ca: t.certificate });
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

describe('state-changing API calls from another site', () => {
  let t: TestJunction;
  let admin: string;
  let cookie: string;
  const restarts: string[] = [];

  beforeAll(async () => {
    t = await startJunction({ api: { corsOrigins: [CONSOLE] } });
    t.junction.onRestartRequested((by) => restarts.push(by));
    admin = await unlockRoot(t);
    cookie = sessionCookie(await t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } }));
  });
  afterAll(async () => t.destroy());

  const refusedAsCrossSite = (res: TestResponse, origin: string | null) => {
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 'CROSS_ORIGIN_REFUSED', message: expect.stringContaining('api.corsOrigins') as unknown, details: { origin } } });
  };

  it('refuses POST /groups from a page of another site, with the session cookie or cached Basic credentials', async () => {
    refusedAsCrossSite(await t.request('/groups', { method: 'POST', headers: { origin: EVIL, cookie }, json: group('evil-cookie') }), EVIL);
    refusedAsCrossSite(await t.request('/groups', { method: 'POST', headers: { origin: EVIL, authorization: admin }, json: group('evil-basic') }), EVIL);
    // A sandboxed frame says `null`; a near miss of the configured console is another origin.
    refusedAsCrossSite(await t.request('/groups', { method: 'POST', headers: { origin: 'null', cookie }, json: group('evil-null') }), 'null');
    refusedAsCrossSite(await t.request('/groups', { method: 'POST', headers: { origin: 'http://console.example:9000', cookie }, json: group('evil-near') }), 'http://console.example:9000');
    // A browser that leaves Origin out still marks the request as another site's.
    refusedAsCrossSite(await t.request('/groups', { method: 'POST', headers: { 'sec-fetch-site': 'cross-site', cookie }, json: group('evil-fetch-site') }), null);
    expect(await t.junction.store.contactGroups.count({})).toBe(0);
    // Every refusal is logged, naming the page.
    expect(t.logs.some((line) => line.origin === EVIL && String(line.msg).includes('refused a POST'))).toBe(true);
  });

  it('refuses a bodyless POST /users/:email/password-token and POST /restart from another site, or without the header', async () => {
    refusedAsCrossSite(await t.request(`/users/${ROOT_EMAIL}/password-token`, { method: 'POST', headers: { origin: EVIL, cookie } }), EVIL);
    refusedAsCrossSite(await t.request('/restart', { method: 'POST', headers: { origin: EVIL, authorization: admin } }), EVIL);
    refusedAsCrossSite(await t.request('/restart', { method: 'DELETE', headers: { origin: EVIL, cookie } }), EVIL);
    // No Origin, no JSON body and no X-Requested-With: what an old browser's form post with cached credentials looks like.
    for (const headers of [{ authorization: admin }, { cookie }, { cookie, 'content-type': 'application/x-www-form-urlencoded' }]) {
      const bare = await t.request('/restart', { method: 'POST', headers });
      expect(bare.status).toBeGreaterThanOrEqual(400);
      expect(bare.status).toBeLessThan(500);
    }
    const bare = await t.request(`/users/${ROOT_EMAIL}/password-token`, { method: 'POST', headers: { authorization: admin } });
    expect(bare.status).toBe(400);
    expect(bare.body).toMatchObject({ error: { code: 'REQUEST_MARKER_REQUIRED', message: expect.stringContaining('X-Requested-With') as unknown } });
    const root = await t.junction.store.users.findOne({ email: ROOT_EMAIL });
    expect(root?.tokenHash).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(restarts).toEqual([]);
  });

  it("serves the console's own calls: its origin, the session cookie and X-Requested-With", async () => {
    const self = new URL(t.url).origin;
    const made = await t.request('/groups', { method: 'POST', headers: { origin: self, cookie, 'x-requested-with': 'junction-console', 'sec-fetch-site': 'same-origin' }, json: group('ward-a') });
    expect(made.status).toBe(201);
    const token = await t.request(`/users/${ROOT_EMAIL}/password-token`, { method: 'POST', headers: { origin: self, cookie, 'x-requested-with': 'junction-console' } });
    expect(token.status).toBe(201);
    const id = (made.body as { _id: string })._id;
    expect((await t.request(`/groups/${id}`, { method: 'DELETE', headers: { origin: self, cookie, 'x-requested-with': 'junction-console' } })).status).toBe(200);
    // A console named in api.corsOrigins, and this server under the name a reverse proxy passes on.
    expect((await t.request('/groups', { method: 'POST', headers: { origin: CONSOLE, cookie }, json: group('ward-b') })).status).toBe(201);
    const proxied = await t.request('/groups', { method: 'POST', headers: { origin: 'https://junction.clinic.lan', 'x-forwarded-host': 'junction.clinic.lan', cookie }, json: group('ward-c') });
    expect(proxied.status).toBe(201);
  });

  it('serves scripts and mediators that send no Origin: Basic with JSON bodies, bodyless DELETE, and a marked bodyless POST', async () => {
    const made = await t.request('/groups', { method: 'POST', headers: { authorization: admin }, json: group('script') });
    expect(made.status).toBe(201);
    expect((await t.request(`/groups/${(made.body as { _id: string })._id}`, { method: 'DELETE', headers: { authorization: admin } })).status).toBe(200);
    expect((await t.request(`/users/${ROOT_EMAIL}/password-token`, { method: 'POST', headers: { authorization: admin, 'x-requested-with': 'script' } })).status).toBe(201);
    const restart = await t.request('/restart', { method: 'POST', headers: { authorization: admin }, json: {} });
    expect(restart.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(restarts).toEqual([ROOT_EMAIL]);
  });

  it('challenges scripts with WWW-Authenticate: Basic, and never a browser', async () => {
    const script = await t.request('/users');
    expect(script.status).toBe(401);
    expect(script.headers.get('www-authenticate')).toMatch(/^Basic/);
    const wrong = await t.request('/users', { headers: { authorization: basic(ROOT_EMAIL, 'not-the-password-1') } });
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
    // What browsers send on a page's request or a navigation (Node's fetch, used here, sends Sec-Fetch-Mode alone).
    for (const headers of [{ 'sec-fetch-site': 'none', 'sec-fetch-dest': 'document' }, { 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'empty' }, { accept: 'text/html,application/xhtml+xml' }, { origin: new URL(t.url).origin }]) {
      const res = await t.request('/users', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get('www-authenticate'), JSON.stringify(headers)).toBeNull();
      expect(res.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    }
    const ws = await handshake(t, { 'sec-fetch-mode': 'websocket', 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'websocket' });
    expect(ws.status).toBe(401);
  });

  it('refuses the live feed to pages of other sites, and opens it to the console and configured consoles', async () => {
    const evil = await handshake(t, { origin: EVIL, cookie });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body)).toMatchObject({ error: { code: 'CROSS_ORIGIN_REFUSED' } });
    expect((await handshake(t, { origin: new URL(t.url).origin, cookie })).status).toBe(101);
    expect((await handshake(t, { origin: CONSOLE, cookie })).status).toBe(101);
    expect((await handshake(t, { authorization: admin })).status).toBe(101);
  });
});

describe('state-changing API calls from another site, with no console configured elsewhere (the default)', () => {
  let t: TestJunction;
  beforeAll(async () => {
    t = await startJunction();
  });
  afterAll(async () => t.destroy());

  it('refuses the three findings: POST /groups, a bodyless password-token and a bodyless restart from evil.example', async () => {
    const restarts: string[] = [];
    t.junction.onRestartRequested((by) => restarts.push(by));
    const admin = await unlockRoot(t);
    const cookie = sessionCookie(await t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } }));
    for (const credentials of [{ cookie }, { authorization: admin }]) {
      const headers = { origin: EVIL, ...credentials };
      expect((await t.request('/groups', { method: 'POST', headers, json: group('evil') })).body).toMatchObject({ error: { code: 'CROSS_ORIGIN_REFUSED' } });
      expect((await t.request(`/users/${ROOT_EMAIL}/password-token`, { method: 'POST', headers })).body).toMatchObject({ error: { code: 'CROSS_ORIGIN_REFUSED' } });
      expect((await t.request('/restart', { method: 'POST', headers })).body).toMatchObject({ error: { code: 'CROSS_ORIGIN_REFUSED' } });
    }
    expect(await t.junction.store.contactGroups.count({})).toBe(0);
    expect((await t.junction.store.users.findOne({ email: ROOT_EMAIL }))?.tokenHash).toBeUndefined();
    // The same origin still works, without any configuration.
    const self = new URL(t.url).origin;
    expect((await t.request('/groups', { method: 'POST', headers: { origin: self, cookie, 'x-requested-with': 'junction-console' }, json: group('ward') })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(restarts).toEqual([]);
  });
});
