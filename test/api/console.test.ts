/** The built console served at `/` on the management port, beside the API and without weakening it. */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findConsoleDir } from '../../service/api/console.js';
import { startJunction, tempDir } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { loginEvents } from '../helpers/audits.js';

describe('the console on the management port', () => {
  let t: TestJunction;
  let dir: string;

  beforeAll(async () => {
    dir = await tempDir('junction-console-');
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Junction console</title><script type="module" src="/assets/app-1234.js"></script>');
    await writeFile(join(dir, 'assets', 'app-1234.js'), 'console.log("console");');
    t = await startJunction({}, { consoleDir: dir });
  });
  afterAll(async () => {
    await t.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves index.html at / without credentials, with a strict content security policy and no caching', async () => {
    const page = await t.inject('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('Junction console');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-cache');
  });

  it('serves hashed assets with long-lived caching', async () => {
    const asset = await t.inject('/assets/app-1234.js');
    expect(asset.status).toBe(200);
    expect(asset.text).toContain('console');
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('leaves unknown paths to the API: a JSON error, not the page', async () => {
    // Unknown paths sit behind authentication like the API, so an anonymous caller learns nothing about what exists.
    const missing = await t.inject('/assets/missing.js');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toContain('application/json');
    expect(missing.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
  });

  it("answers the browser's own icon request without credentials and writes no failed login (issue 35)", async () => {
    // Anonymous requests are audited once a minute per address: this test's own address keeps earlier tests out.
    const from = { remoteAddress: '10.35.0.1' };
    const failures = async () => (await loginEvents(t)).filter((e) => e.outcome !== '0');
    const before = (await failures()).length;
    const icon = await t.junction.inject({ method: 'GET', url: '/favicon.ico', ...from });
    expect(icon.statusCode).toBe(204);
    // The session probe the sign-in page makes is no failed login either.
    expect((await t.junction.inject({ method: 'GET', url: '/me', ...from })).statusCode).toBe(404);
    expect((await failures()).length).toBe(before);
    // A wrong password still is, and so is an anonymous call of the API from that address.
    const wrong = await t.junction.inject({ method: 'POST', url: '/authenticate/local', payload: { username: 'root@junction.local', password: 'not-the-password' }, ...from });
    expect(wrong.statusCode).toBe(401);
    expect((await t.junction.inject({ method: 'GET', url: '/channels', ...from })).statusCode).toBe(401);
    const after = await failures();
    expect(after.length).toBe(before + 2);
    expect(after).toContainEqual({ user: 'root@junction.local', outcome: '4', method: 'local' });
    expect(after).toContainEqual({ user: 'anonymous', outcome: '4', method: 'none' });
  });

  it('keeps every API route behind authentication', async () => {
    const channels = await t.inject('/channels');
    expect(channels.status).toBe(401);
    expect(channels.headers.get('cache-control')).toBe('no-store');
  });

  it('leaves out the Basic challenge for the console, so the browser shows no password dialog over the sign-in form', async () => {
    const plain = await t.inject('/channels');
    expect(plain.headers.get('www-authenticate')).toMatch(/^Basic /);
    const fromConsole = await t.inject('/channels', { headers: { 'x-requested-with': 'junction-console' } });
    expect(fromConsole.status).toBe(401);
    expect(fromConsole.headers.get('www-authenticate')).toBeNull();
  });
});

describe("the console's icon (issue 36)", () => {
  let t: TestJunction;
  let bare: TestJunction;
  let dir: string;
  // A real icon file's first bytes: an ICO header naming one image.
  const icon = Buffer.from([0, 0, 1, 0, 1, 0, 32, 32, 0, 0, 1, 0, 32, 0]);

  beforeAll(async () => {
    dir = await tempDir('junction-console-');
    await writeFile(join(dir, 'index.html'), '<!doctype html><link rel="icon" href="/favicon.svg" type="image/svg+xml"><title>Junction</title>');
    await writeFile(join(dir, 'favicon.ico'), icon);
    await writeFile(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32"/></svg>');
    t = await startJunction({}, { consoleDir: dir });
    bare = await startJunction({}, { consoleDir: null });
  });
  afterAll(async () => {
    await t.destroy();
    await bare.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the built icon, and the page\'s own icon link, without credentials', async () => {
    const ico = await t.request('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toMatch(/icon/);
    const svg = await t.request('/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toContain('image/svg+xml');
  });

  it('answers the icon request without a 401 when no console is served either', async () => {
    const answer = await bare.request('/favicon.ico');
    expect(answer.status).toBe(204);
    // Everything else is still behind authentication.
    expect((await bare.request('/favicon.svg')).status).toBe(401);
  });
});

describe('finding the built console', () => {
  it('walks up from the service folder to renderer/dist', async () => {
    const root = await tempDir('junction-layout-');
    try {
      await mkdir(join(root, 'renderer', 'dist'), { recursive: true });
      await writeFile(join(root, 'renderer', 'dist', 'index.html'), '<!doctype html>');
      await mkdir(join(root, 'dist', 'service', 'api'), { recursive: true });
      expect(findConsoleDir(join(root, 'dist', 'service', 'api'))).toBe(join(root, 'renderer', 'dist'));
      expect(findConsoleDir(join(root, 'service', 'api'))).toBe(join(root, 'renderer', 'dist'));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('answers null when no console has been built', async () => {
    const root = await tempDir('junction-layout-');
    try {
      expect(findConsoleDir(join(root, 'a', 'b'))).toBeNull();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
