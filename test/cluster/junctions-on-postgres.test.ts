/**
 * Issue 20: whole Junction instances on one PostgreSQL database, in one process. Each has its own data folder (logs
 * only) and the same keystore secret; everything else they share through the database: the first-run account, the
 * sessions, channels, transactions with their bodies, audits and the keystore.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, NEW_ROOT_PASSWORD, ROOT_EMAIL, sessionCookie, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';

describe('two Junction instances on one PostgreSQL database', () => {
  let db: TestDatabase;
  let shared: string;
  let upstream: Upstream;
  const instances: TestJunction[] = [];
  let admin: string;

  const start = async (): Promise<TestJunction> => {
    const t = await startJunction({ storage: { engine: 'postgres', postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: join(shared, 'keystore.secret') } });
    instances.push(t);
    return t;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    shared = await tempDir('junction-cluster-shared-');
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then((body) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`upstream saw ${req.url ?? ''} ${body.length}`);
      });
    });
    await start();
    await start();
    admin = await unlockRoot(instances[0]!);
  });

  afterAll(async () => {
    for (const t of instances.splice(0)) await t.destroy();
    await upstream?.close();
    await db?.drop();
    if (shared !== undefined) await rm(shared, { recursive: true, force: true });
  });

  it('share the first-run account: the password changed through one signs in on the other', async () => {
    const [, b] = instances;
    expect((await b!.inject('/me', { headers: { authorization: admin } })).status).toBe(200);
    expect((await b!.inject('/me', { headers: { authorization: basic(ROOT_EMAIL, 'wrong') } })).status).toBe(401);
  });

  it('share sessions: a cookie from one instance works on the other', async () => {
    const [a, b] = instances;
    const login = await a!.request('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    expect(login.status).toBe(200);
    const cookie = sessionCookie(login);
    const me = await b!.request('/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.text).toContain(ROOT_EMAIL);
    // A route that needs a session: refused without the cookie, answered with it.
    expect((await b!.request('/channels')).status).toBe(401);
    expect((await b!.request('/channels', { headers: { cookie } })).status).toBe(200);
  });

  it('list both instances and the engine on /about', async () => {
    const [a, b] = instances;
    const about = (await a!.inject('/about', { headers: { authorization: admin } })).body as { storage: { engine: string; instances: { id: string; self: boolean; apiUrl: string }[] } };
    expect(about.storage.engine).toBe('postgres');
    expect(about.storage.instances.map((i) => i.apiUrl).sort()).toEqual([a!.url, b!.url].sort());
    expect(about.storage.instances.filter((i) => i.self).map((i) => i.apiUrl)).toEqual([a!.url]);
  });

  it('route through a channel created on one instance, on the other, and store the transaction for both to read', async () => {
    const [a, b] = instances;
    const created = await a!.inject('/channels', {
      method: 'POST',
      headers: { authorization: admin },
      json: { name: 'Shared', urlPattern: '^/shared/.*$', authType: 'public', methods: ['POST'], routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(created.status).toBe(201);
    // The other instance learns of the channel from the change notice, not from a restart.
    const answer = await until('the channel on the other instance', async () => {
      const res = await fetch(`${b!.httpUrl}/shared/one`, { method: 'POST', body: 'x'.repeat(1000) });
      const text = await res.text();
      return res.status === 200 ? text : undefined;
    });
    expect(answer).toBe('upstream saw /shared/one 1000');
    const id = await until('the transaction, finished, read through the first instance', async () => {
      const [tx] = await a!.junction.transactions.page({}, { skip: 0, limit: 1 });
      return tx?.status === 'Successful' ? tx._id : undefined;
    });
    const read = await a!.inject(`/transactions/${id}?filterRepresentation=full`, { headers: { authorization: admin } });
    expect(read.status).toBe(200);
    const tx = read.body as { request: { body: string }; response: { body: string } };
    expect(tx.request.body).toBe('x'.repeat(1000));
    expect(tx.response.body).toBe('upstream saw /shared/one 1000');
  });

  it('refuse a backup with the reason', async () => {
    const res = await instances[0]!.inject('/backup', { headers: { authorization: admin } });
    expect(res.status).toBe(409);
    expect(res.text).toContain('PostgreSQL');
  });
});
