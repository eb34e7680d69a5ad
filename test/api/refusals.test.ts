/**
 * Refusals recorded and listed (issue 35), end to end on both storage engines: each kind of refusal made on a real
 * socket (HTTP 404, 401 for bad credentials, 401 for a client the channel does not admit, an MLLP AR from a private
 * channel nobody may use sent by Debian's `mllp_send`, an oversized MLLP frame, a connection over the per-address cap)
 * appears in `GET /refusals` with its reason, channel and address, repeats folded into one row with a count; the
 * list's filters, its permissions (401, 403, a non-admin seeing only the channels it may view) and its 400s; the
 * Prometheus counter, checked by `promtool check metrics`; and retention.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch } from 'undici';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Refusal, RefusalPage } from '../../service/contracts/refusals.js';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { applyRetention } from '../../service/schedulers/retention.js';
import { basic, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';
import { listeningChannel } from '../messages/hl7-peers.js';
import { adt, rawPeer } from '../transports/fixtures.js';

/** Runs Debian's mllp_send (python3-hl7) with `message` as its file; resolves with what it printed (the ACK). */
async function mllpSend(port: number, message: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-refusals-mllp-'));
  const file = join(dir, 'message.hl7');
  await writeFile(file, `${message}\x1c`);
  try {
    return await new Promise((resolve, reject) => {
      execFile('mllp_send', ['-p', String(port), '-f', file, '127.0.0.1'], { timeout: 10_000 }, (err, stdout, stderr) => {
        if (err !== null) reject(new Error(`mllp_send failed: ${err.message} ${stderr}`));
        else resolve(stdout);
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function promtool(text: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(text);
  });
}

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describe.each(['embedded', 'postgres'] as const)('refusals on the %s engine', (engine) => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };
  const channels: Record<string, string> = {};

  async function user(email: string, groups: string[]): Promise<{ authorization: string }> {
    const password = 'user-password-123';
    const res = await t.inject('/users', { method: 'POST', headers: admin, json: { email, firstname: 'A', surname: 'B', groups, password } });
    if (res.status !== 201) throw new Error(res.text);
    return { authorization: basic(email, password) };
  }

  async function list(query: string, headers: { authorization: string } = admin): Promise<RefusalPage> {
    const res = await t.inject(`/refusals${query}`, { headers });
    expect(res.status, res.text).toBe(200);
    return res.body as RefusalPage;
  }

  /** The rows of one reason (and channel), waiting for a refusal the listener records as the connection ends. */
  function rowsOf(reason: string, channelID?: string): Promise<Refusal[]> {
    const query = `?reason=${reason}${channelID === undefined ? '' : `&channelID=${channelID}`}`;
    return until(`a ${reason} refusal`, async () => {
      const { items } = await list(query);
      return items.length > 0 ? items : undefined;
    });
  }

  beforeAll(async () => {
    const storage = engine === 'postgres' ? { storage: { engine: 'postgres' as const, postgres: { url: (await (database ??= createTestDatabase())).url, poolSize: 4 } } } : {};
    t = await startJunction({
      ...storage,
      keystore: { secretFile: join(await tempDir(), 'keystore.secret') },
      tcp: { maxMessageBytes: 1024, maxConnectionsPerAddress: 1 },
      // The list writes what the recorder holds before it reads: nothing here waits for a flush.
      refusals: { flushIntervalSeconds: 3600 },
    });
    admin = { authorization: await unlockRoot(t) };
    nurse = await user('nina@clinic.example', ['nurses']);
    const locked = await t.inject('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'http locked', urlPattern: '^/locked$', authType: 'private', allow: ['lab'], txViewAcl: ['nurses'], routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] },
    });
    expect(locked.status, locked.text).toBe(201);
    channels.locked = (locked.body as { _id: string })._id;
  });

  afterAll(async () => {
    await t.destroy();
  });

  it('records HTTP refusals on the transaction port: 404 folded per minute, 401 for bad credentials, 401 for a client the channel does not admit', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.httpUrl}/nowhere`)).status).toBe(404);
    expect((await fetch(`${t.httpUrl}/locked`, { headers: { authorization: basic('nobody', 'wrong') } })).status).toBe(401);
    expect((await fetch(`${t.httpUrl}/locked`)).status).toBe(401);

    const notFoundRows = await rowsOf('no_channel');
    // One row, unless the three straddled a minute's end.
    expect(notFoundRows.length).toBeLessThanOrEqual(2);
    expect(notFoundRows.reduce((sum, r) => sum + r.count, 0)).toBe(3);
    const notFound = notFoundRows.at(-1);
    expect(notFound).toMatchObject({ reason: 'no_channel', listener: 'http', channelID: null, address: '127.0.0.1', detail: 'No channel matches GET /nowhere' });
    expect(Date.parse(notFound?.firstAt ?? '')).toBeLessThanOrEqual(Date.parse(notFound?.lastAt ?? ''));
    expect(notFound?.port).toBe(Number(new URL(t.httpUrl).port));
    expect((await rowsOf('unauthenticated'))[0]).toMatchObject({ count: 1, listener: 'http', address: '127.0.0.1' });
    expect((await rowsOf('not_allowed', channels.locked))[0]).toMatchObject({ count: 1, channelID: channels.locked, channelName: 'http locked', detail: 'The client is not allowed to use channel http locked' });
  });

  it('records the AR an MLLP sender gets from a private channel nobody may use (sent by mllp_send)', async () => {
    const channel = await listeningChannel(t, admin, 9, 'lab feed', { authType: 'private', allow: [] });
    channels.lab = channel._id;
    const ack = await mllpSend(channel.tcpPort, adt('REFUSED-1'));
    expect(ack).toContain('MSA|AR|REFUSED-1');
    const [row] = await rowsOf('not_allowed', channel._id);
    expect(row).toMatchObject({ reason: 'not_allowed', count: 1, listener: 'channel:lab feed', port: channel.tcpPort, channelID: channel._id, channelName: 'lab feed', address: '127.0.0.1' });
    expect(row?.detail).toContain('may not use channel lab feed');
  });

  it('records an MLLP frame over tcp.maxMessageBytes and a connection over the per-address cap, on the channel', async () => {
    const channel = await listeningChannel(t, admin, 9, 'size and cap');
    const big = await rawPeer(channel.tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(adt('BIG').padEnd(4000, 'X')))));
    expect(big.closedBy).not.toBe('timeout');
    const [tooLarge] = await rowsOf('too_large', channel._id);
    expect(tooLarge).toMatchObject({ listener: 'channel:size and cap', channelID: channel._id, channelName: 'size and cap', address: '127.0.0.1' });
    expect(tooLarge?.detail).toContain('longer than the 1024 bytes allowed');

    // One connection from this address is all tcp.maxConnectionsPerAddress allows: the second is closed at once. A
    // channel of its own, so no connection of the frame above is still closing on Junction's side.
    const capChannel = await listeningChannel(t, admin, 9, 'capped');
    const held: Socket = connect({ host: '127.0.0.1', port: capChannel.tcpPort });
    await new Promise<void>((resolve) => held.once('connect', () => resolve()));
    try {
      const second = await rawPeer(capChannel.tcpPort, () => undefined, Infinity, 5_000);
      expect(second.closedBy).not.toBe('timeout');
      const [capped] = await rowsOf('connection_limit', capChannel._id);
      expect(capped).toMatchObject({ channelName: 'capped', listener: 'channel:capped', address: '127.0.0.1', detail: 'per_address' });
    } finally {
      held.destroy();
    }
  });

  it('filters by reason, channel, address and time, and pages', async () => {
    const all = await list('');
    expect(all.total).toBeGreaterThanOrEqual(6);
    expect(all.refused).toBe(all.items.reduce((sum, r) => sum + r.count, 0));
    expect(all.items.some((r) => r.reason === 'connection_limit')).toBe(true);
    expect(all.items.every((r, i, rows) => i === 0 || Date.parse(rows[i - 1]?.lastAt ?? '') >= Date.parse(r.lastAt))).toBe(true);
    expect((await list('?reason=no_channel,unauthenticated')).items.map((r) => r.reason).sort()).toEqual(['no_channel', 'unauthenticated']);
    expect((await list(`?channelID=${channels.locked},${channels.lab}`)).total).toBe(2);
    expect((await list('?address=192.0.2.1')).total).toBe(0);
    expect((await list('?address=127.0.0.1')).total).toBe(all.total);
    expect((await list(`?from=${new Date(Date.now() + 3_600_000).toISOString()}`)).total).toBe(0);
    expect((await list(`?to=${new Date(Date.now() - 3_600_000).toISOString()}`)).total).toBe(0);
    const first = await list('?filterLimit=2&filterPage=0');
    const second = await list('?filterLimit=2&filterPage=1');
    expect(first.items).toHaveLength(2);
    expect(first.total).toBe(all.total);
    expect(second.items.map((r) => r._id)).toEqual(all.items.slice(2, 4).map((r) => r._id));
  });

  it('answers 401 without a user, shows a non-admin only the channels it may view, and 403 for a channel it may not', async () => {
    expect((await t.request('/refusals')).status).toBe(401);
    const seen = await list('', nurse);
    expect(seen.items.length).toBeGreaterThan(0);
    expect(seen.items.every((r) => r.channelID === channels.locked)).toBe(true);
    expect(seen.total).toBe(seen.items.length);
    const refused = await t.inject(`/refusals?channelID=${channels.lab ?? ''}`, { headers: nurse });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it('answers 400 naming the problem for a bad query', async () => {
    for (const [query, words] of [
      ['?reason=bogus', 'bogus is not a refusal reason'],
      ['?from=yesterday', 'ISO 8601'],
      [`?from=${new Date().toISOString()}&to=2020-01-01T00:00:00Z`, 'must not be before from'],
      ['?channelID=nope', 'is not a channel id'],
      ['?filterLimit=0', ''],
      ['?colour=blue', ''],
    ] as const) {
      const res = await t.inject(`/refusals${query}`, { headers: admin });
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
      expect(res.text).toContain(words);
    }
  });

  it('counts refusals in Prometheus by channel and reason; promtool check metrics passes', async () => {
    const res = await t.request('/metrics', { headers: { ...admin, accept: 'text/plain;version=0.0.4' } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('junction_refusals_total{channel="",reason="no_channel"} 3');
    expect(res.text).toContain('junction_refusals_total{channel="lab feed",reason="not_allowed"} 1');
    expect(res.text).toContain('junction_refusals_total{channel="http locked",reason="not_allowed"} 1');
    const checked = await promtool(res.text);
    expect(checked.code, checked.out).toBe(0);
  });

  it('removes refusals older than the kept days with the daily retention', async () => {
    const before = (await list('')).total;
    await t.junction.refusals.add([{ minute: Date.UTC(2020, 0, 1), first: Date.UTC(2020, 0, 1), last: Date.UTC(2020, 0, 1), reason: 'throttled', listener: 'http', port: null, channelId: '', channelName: '', address: '198.51.100.7', client: null, count: 4, detail: 'old' }]);
    expect((await list('')).total).toBe(before + 1);
    await applyRetention({ transactions: t.junction.transactions, bodies: t.junction.bodies, channels: t.junction.store.channels, maxAgeDays: 30, refusals: t.junction.refusals, logger: pino({ level: 'silent' }) });
    expect((await list('')).total).toBe(before);
    expect((await list('?address=198.51.100.7')).total).toBe(0);
  });
});
