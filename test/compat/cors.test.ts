/**
 * OpenHIM compatibility: an OpenHIM console served from another origin, pointed at Junction (`api.corsOrigins`).
 * Its browser sends a preflight before each JSON call and then the call with the console's session cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEW_ROOT_PASSWORD, ROOT_EMAIL, startCompat } from './openhim-caller.js';
import type { CompatJunction, TestResponse } from './openhim-caller.js';

const CONSOLE = 'https://console.example:9000';
const OTHER = 'https://evil.example';

/** What a browser sends before a cross-origin PUT with a JSON body and OpenHIM's token headers. */
function preflight(c: CompatJunction, origin: string, path = '/channels'): Promise<TestResponse> {
  return c.t.request(path, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,auth-username,auth-token' },
  });
}

const allowHeaders = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-allow-credentials'];

describe('OpenHIM compatibility: CORS with api.corsOrigins naming a console', () => {
  let c: CompatJunction;

  beforeAll(async () => {
    c = await startCompat({ api: { corsOrigins: [CONSOLE, 'http://localhost:9000'] } });
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('answers the console\'s preflight 204 with its origin (never *), the methods and OpenHIM\'s headers, credentials and Vary: Origin', async () => {
    const res = await preflight(c, CONSOLE);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-methods')?.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']));
    expect(res.headers.get('access-control-allow-headers')?.split(/,\s*/)).toEqual(
      expect.arrayContaining(['content-type', 'authorization', 'auth-username', 'auth-ts', 'auth-salt', 'auth-token']),
    );
    expect(res.headers.get('vary')).toMatch(/origin/i);
    expect((await preflight(c, 'http://localhost:9000', '/me')).headers.get('access-control-allow-origin')).toBe('http://localhost:9000');
  });

  it('gives another origin\'s preflight no allow headers at all', async () => {
    const res = await preflight(c, OTHER);
    expect(res.status).not.toBe(204);
    for (const name of allowHeaders) expect(res.headers.get(name), name).toBeNull();
    // Near misses are other origins too: the comparison is exact.
    for (const near of ['https://console.example', 'https://console.example:9000/', 'http://console.example:9000']) {
      expect((await preflight(c, near)).headers.get('access-control-allow-origin'), near).toBeNull();
    }
  });

  it('lets the console sign in cross-site (SameSite=None; Secure cookie) and read with the cookie', async () => {
    const login = await c.t.request('/authenticate/local', { method: 'POST', headers: { origin: CONSOLE }, json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    expect(login.status).toBe(200);
    expect(login.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(login.headers.get('access-control-allow-credentials')).toBe('true');
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/SameSite=None/i);
    expect(cookie).toMatch(/;\s*Secure/i);
    const me = await c.t.request('/me', { headers: { origin: CONSOLE, cookie: cookie.split(';')[0] ?? '' } });
    expect(me.status).toBe(200);
    expect(me.headers.get('access-control-allow-origin')).toBe(CONSOLE);
  });

  it('refuses a state-changing request from a page of another origin (403), even with the session cookie', async () => {
    const login = await c.t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const res = await c.t.request('/restart', { method: 'POST', headers: { origin: OTHER, cookie } });
    expect(res.status).toBe(403);
    expect(res.text).toContain('api.corsOrigins');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('still serves scripts (no Origin header) and the same origin as before', async () => {
    expect((await c.root.get('/channels')).status).toBe(200);
    const self = new URL(c.t.url).origin;
    const res = await c.t.request('/authenticate/local', { method: 'POST', headers: { origin: self }, json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('OpenHIM compatibility: CORS by default (api.corsOrigins empty)', () => {
  let c: CompatJunction;

  beforeAll(async () => {
    c = await startCompat();
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('sends no CORS headers, not even to a preflight', async () => {
    const res = await preflight(c, CONSOLE);
    expect(res.status).not.toBe(204);
    for (const name of allowHeaders) expect(res.headers.get(name), name).toBeNull();
    const get = await c.root.call('/channels', { headers: { origin: CONSOLE } });
    expect(get.status).toBe(200);
    for (const name of allowHeaders) expect(get.headers.get(name), name).toBeNull();
  });

  it('keeps the session cookie SameSite=Strict', async () => {
    const login = await c.t.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    expect(login.headers.get('set-cookie')).toMatch(/SameSite=Strict/i);
  });
});
