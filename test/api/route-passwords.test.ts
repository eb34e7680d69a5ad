/**
 * Route passwords (the Basic credentials Junction sends to a channel's route) are sealed at rest (issue 33, part 4):
 * not in the bytes of channels.db nor in the PostgreSQL row, masked in answers, opened only in memory, and still sent
 * to a real upstream. Passwords an earlier version stored in clear are sealed at the next start.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import { memoryLogger } from '../helpers/logger.js';
import { completedTransaction, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase, runSql } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';

const PASSWORD = 'upstream-Secret-7731';
const OLD_PASSWORD = 'legacy-clear-Secret-4410';

let upstream: Upstream;
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  upstream = await httpUpstream((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
afterAll(async () => upstream.close());

const channel = (name: string, password: string) => ({
  name,
  urlPattern: `^/${name}$`,
  authType: 'public',
  routes: [{ name: 'lab', host: '127.0.0.1', port: upstream.port, primary: true, username: 'junction', password }],
});

/** Creates the channel through the API, sends one transaction through it, and checks what the upstream got. */
async function sendsBasicUpstream(t: TestJunction, admin: string, name: string, password: string): Promise<void> {
  const created = await t.request('/channels', { method: 'POST', headers: { authorization: admin }, json: channel(name, password) });
  expect(created.status, created.text).toBe(201);
  expect(created.text).not.toContain(password);
  await expectSent(t, name, password);
}

async function expectSent(t: TestJunction, name: string, password: string): Promise<void> {
  const before = seen.length;
  const res = await fetch(`${t.httpUrl}/${name}`);
  expect(res.status).toBe(200);
  await completedTransaction(t, res.headers.get('x-openhim-transactionid'));
  expect(seen.slice(before)).toEqual([`Basic ${Buffer.from(`junction:${password}`).toString('base64')}`]);
}

describe('route passwords on the embedded store', () => {
  let t: TestJunction;
  let admin: string;
  beforeAll(async () => {
    t = await startJunction();
    admin = await unlockRoot(t);
  });
  afterAll(async () => t.destroy());

  it('keeps them out of channels.db, masks them in answers, and still sends them upstream', async () => {
    await sendsBasicUpstream(t, admin, 'sealed', PASSWORD);
    const listed = await t.request('/channels', { headers: { authorization: admin } });
    expect(listed.text).not.toContain(PASSWORD);
    expect(listed.body).toMatchObject([{ routes: [{ password: '********' }] }]);
    const bytes = await readFile(join(t.dataDir, 'channels.db'));
    expect(bytes.includes(PASSWORD)).toBe(false);
    expect(bytes.toString('utf8')).toMatch(/junction-sealed:v1:/);
    // Sending the mask back keeps the stored password; the metadata export with secrets still carries it.
    const id = (listed.body as { _id: string; routes: Record<string, unknown>[] }[])[0]!._id;
    const stored = (listed.body as { routes: Record<string, unknown>[] }[])[0]!.routes;
    expect((await t.request(`/channels/${id}`, { method: 'PUT', headers: { authorization: admin }, json: { routes: stored, description: 'kept' } })).status).toBe(200);
    await expectSent(t, 'sealed', PASSWORD);
    expect((await readFile(join(t.dataDir, 'channels.db'))).includes(PASSWORD)).toBe(false);
  });

  it('seals the passwords an earlier version stored in clear at the next start, reading them in either form', async () => {
    const dataDir = t.dataDir;
    await t.stop();
    // Written as a version without sealing did: straight into the engine.
    const store = createNedbStore({ dataDir, logger: memoryLogger().logger });
    await store.open();
    const template = await store.channels.findOne({ name: 'sealed' });
    if (template === null) throw new Error('no channel to copy');
    const { _id: _unused, ...rest } = template;
    await store.channels.insert({ ...rest, name: 'legacy', urlPattern: '^/legacy$', routes: template.routes.map((route) => ({ ...route, password: OLD_PASSWORD })) });
    await store.close();
    expect((await readFile(join(dataDir, 'channels.db'))).includes(OLD_PASSWORD)).toBe(true);

    t = await startJunction({}, { dataDir });
    expect(t.logs.some((line) => String(line.msg).includes('sealed the route passwords'))).toBe(true);
    await expectSent(t, 'legacy', OLD_PASSWORD);
    await expectSent(t, 'sealed', PASSWORD);
    await t.stop();
    // Closing compacts the file, so the clear line written before is gone too.
    const bytes = await readFile(join(dataDir, 'channels.db'));
    expect(bytes.includes(OLD_PASSWORD)).toBe(false);
    expect(bytes.includes(PASSWORD)).toBe(false);
    t = await startJunction({}, { dataDir });
  });

  it('starts without the secret the passwords were sealed with, logging each route that lost its password', async () => {
    const dataDir = t.dataDir;
    await t.stop();
    // The documented way out of a lost secret: move the keystore away, which starts over with a new secret.
    await rm(join(dataDir, 'keystore'), { recursive: true });
    await rm(join(dataDir, 'keystore.secret'));
    t = await startJunction({}, { dataDir });
    const lost = t.logs.filter((line) => String(line.msg).includes('route password cannot be opened'));
    expect(lost.map((line) => line.channel).sort()).toEqual(['legacy', 'sealed']);
    const before = seen.length;
    expect((await fetch(`${t.httpUrl}/sealed`)).status).toBe(200);
    // The route's username alone: never a password that could not be read.
    expect(seen.slice(before)).toEqual([`Basic ${Buffer.from('junction:').toString('base64')}`]);
  });
});

describe('route passwords on PostgreSQL', () => {
  let db: TestDatabase;
  let t: TestJunction;
  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startJunction({ storage: { engine: 'postgres', postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: join(await tempDir(), 'keystore.secret') } });
  });
  afterAll(async () => {
    await t.destroy();
    await db.drop();
  });

  it('keeps them out of the row and still sends them upstream', async () => {
    const admin = await unlockRoot(t);
    await sendsBasicUpstream(t, admin, 'pg-sealed', PASSWORD);
    const rows = await runSql(db.url, 'SELECT * FROM store_channels');
    const text = JSON.stringify(rows.rows);
    expect(text).toContain('pg-sealed');
    expect(text).not.toContain(PASSWORD);
    expect(text).toMatch(/junction-sealed:v1:/);
  });
});
