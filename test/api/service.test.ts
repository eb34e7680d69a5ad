import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { basic, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import type { AboutAnswer } from '../../service/contracts/api.js';
import { listeningPorts } from '../../service/domain/operations/listening-ports.js';

describe('service endpoints', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
  });
  afterAll(async () => t.destroy());

  it('GET /heartbeat answers without authentication in the OpenHIM shape', async () => {
    const res = await t.inject('/heartbeat');
    expect(res.status).toBe(200);
    const body = res.body as { master: number; mediators: object; now: number };
    expect(body.master).toBeGreaterThan(0);
    expect(body.mediators).toEqual({});
    expect(Math.abs(body.now - Date.now())).toBeLessThan(5000);
  });

  it('GET /about reports the core version and time zone to authenticated users only', async () => {
    expect((await t.inject('/about')).status).toBe(401);
    const res = await t.inject('/about', { headers: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ currentCoreVersion: '9.9.9-test', version: '9.9.9-test', serverTimezone: expect.any(String) as string });
  });

  it('GET /about names the configured time zone, the one metrics, alerts and reports use', async () => {
    const zoned = await startJunction({ timeZone: 'Pacific/Auckland' });
    try {
      const res = await zoned.inject('/about', { headers: { authorization: await unlockRoot(zoned) } });
      expect((res.body as AboutAnswer).serverTimezone).toBe('Pacific/Auckland');
    } finally {
      await zoned.destroy();
    }
  });

  it('GET /about tells admins the ports really listened on, and hides them from other users', async () => {
    const res = await t.inject('/about', { headers: admin });
    const portOf = (url: string) => Number(new URL(url).port);
    expect((res.body as AboutAnswer).ports).toEqual([
      { purpose: 'api', protocol: 'https', port: portOf(t.url) },
      { purpose: 'transactions', protocol: 'https', port: portOf(t.httpsUrl) },
      { purpose: 'transactions', protocol: 'http', port: portOf(t.httpUrl) },
    ]);
    const password = 'plain-user-password-1';
    const created = await t.inject('/users', { method: 'POST', headers: admin, json: { email: 'nurse@clinic.example', firstname: 'N', surname: 'U', groups: ['nurses'], password } });
    expect(created.status).toBe(201);
    const asUser = await t.inject('/about', { headers: { authorization: basic('nurse@clinic.example', password) } });
    expect(asUser.status).toBe(200);
    expect(asUser.body).toMatchObject({ version: '9.9.9-test' });
    expect(asUser.body).not.toHaveProperty('ports');
  });

  it('GET /health reports the store state without authentication', async () => {
    const res = await t.inject('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', store: { engine: 'nedb', state: 'ready' } });
  });

  it('GET /me answers 404 when not logged in', async () => {
    expect((await t.inject('/me')).status).toBe(404);
  });

  it('records application start in the audit log', async () => {
    const starts = await t.junction.audits.page({ codes: [{ field: 'eventTypeCode', code: '110120' }] }, { skip: 0, limit: 10_000 });
    expect(starts).toHaveLength(1);
  });

  it('sends security headers', async () => {
    const res = await t.inject('/heartbeat');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the management API certificate', () => {
  it('generates a self-signed certificate at first start and keeps it in the data folder', async () => {
    const t = await startJunction();
    const dataDir = t.dataDir;
    const cert = t.certificate;
    expect(cert).toContain('BEGIN CERTIFICATE');
    // Kept in the keystore, whose file holds the certificate but never the key in the clear.
    const stored = await readFile(join(dataDir, 'keystore', 'keystore.json'), 'utf8');
    expect(stored).not.toContain('PRIVATE KEY');
    // The certificate verifies for localhost and 127.0.0.1 (the helper checks it against this very file).
    expect((await t.request('/heartbeat')).status).toBe(200);
    await t.stop();
    const again = await startJunction({}, { dataDir });
    try {
      expect(again.certificate).toBe(cert);
      // An untrusting client refuses the self-signed certificate: this really is TLS.
      await expect(fetch(`${again.url}/heartbeat`)).rejects.toThrow();
    } finally {
      await again.destroy();
    }
  });

  it('uses a configured certificate and key instead', async () => {
    const dir = await tempDir();
    const pair = generateSelfSigned('configured.example');
    await writeFile(join(dir, 'cert.pem'), pair.cert);
    await writeFile(join(dir, 'key.pem'), pair.key);
    const t = await startJunction({ tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } });
    try {
      expect((await t.request('/heartbeat')).status).toBe(200);
      const started = t.junction.store.health();
      expect(started.state).toBe('ready');
      await expect(readFile(join(t.dataDir, 'tls', 'server-cert.pem'))).rejects.toThrow();
    } finally {
      await t.destroy();
    }
  });

  it('refuses to start when the configured key does not match the certificate', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'cert.pem'), generateSelfSigned('a.example').cert);
    await writeFile(join(dir, 'key.pem'), generateSelfSigned('b.example').key);
    await expect(startJunction({ tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } })).rejects.toThrow(/does not belong/);
  });

  it('serves plain HTTP only when explicitly chosen, with non-Secure cookies', async () => {
    const t = await startJunction({ api: { protocol: 'http' } });
    try {
      expect(t.url.startsWith('http://')).toBe(true);
      const res = await fetch(`${t.url}/users`, { headers: { authorization: basic('root@junction.local', 'junction-password') } });
      expect(res.status).toBe(403);
      const login = await fetch(`${t.url}/authenticate/local`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'root@junction.local', password: 'junction-password' }),
      });
      expect(login.status).toBe(200);
      const cookie = login.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^junction\.sid=.*HttpOnly/i);
      expect(cookie).not.toMatch(/Secure/i);
    } finally {
      await t.destroy();
    }
  });
});

describe('listening ports', () => {
  it('lists the API and transaction ports as bound, then the bound audit listeners', () => {
    expect(listeningPorts('http', 8080, { httpPort: 5001, httpsPort: 5000 })).toHaveLength(3);
    expect(listeningPorts('http', 8080, { httpPort: 5001, httpsPort: 5000 }, [{ protocol: 'tls', port: 5051 }])).toEqual([
      { purpose: 'api', protocol: 'http', port: 8080 },
      { purpose: 'transactions', protocol: 'https', port: 5000 },
      { purpose: 'transactions', protocol: 'http', port: 5001 },
      { purpose: 'audit', protocol: 'tls', port: 5051 },
    ]);
  });
});
