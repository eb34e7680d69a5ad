/**
 * Auto retry against real upstream servers. The job clock is moved by hand (ManualTimers), a minute at a time, so a
 * retry is checked to come neither before its channel's period nor after it, without waiting for real minutes.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import type { AutoRetryMaxAttemptedEvent } from '../../service/events/live.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';

const MINUTE_MS = 60_000;

describe('auto retry', () => {
  // Starts at the real time, because request timestamps are real; each step below moves it on by whole minutes,
  // which dwarfs the few real seconds the test takes.
  const timers = new ManualTimers(Date.now());
  let t: TestJunction;
  let admin: { authorization: string };
  const upstreams: Upstream[] = [];
  const exhausted: AutoRetryMaxAttemptedEvent[] = [];

  async function channel(name: string, port: number, extra: Record<string, unknown>): Promise<void> {
    const res = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name, urlPattern: `^/${name}$`, authType: 'public', autoRetryEnabled: true, routes: [{ name: 'up', host: '127.0.0.1', port, primary: true }], ...extra },
    });
    if (res.status !== 201) throw new Error(`channel: ${res.status} ${res.text}`);
  }

  async function send(path: string): Promise<TransactionRecord> {
    const res = await fetch(`${t.httpUrl}${path}`);
    await res.arrayBuffer();
    return completedTransaction(t, res.headers.get('x-openhim-transactionid'));
  }

  /** Moves the job clock on by `n` minutes (the scan runs every 10 s of it) and waits for the scans to finish. */
  async function minutes(n: number): Promise<void> {
    timers.advance(n * MINUTE_MS);
    await t.junction.jobsSettled();
  }

  /** The transaction and every retry after it, following childIDs. */
  async function chain(id: string): Promise<TransactionRecord[]> {
    const found: TransactionRecord[] = [];
    for (let next: string | undefined = id; next !== undefined; ) {
      const tx: TransactionRecord | null = await t.junction.transactions.get(next);
      if (tx === null) break;
      found.push(tx);
      next = tx.childIDs?.at(-1);
    }
    return found;
  }


  /**
   * A port held by this test whose connections are reset (a connection error, like a service that is down) until
   * `up()`, after which it answers as HTTP. Holding the port keeps another process from taking it meanwhile.
   */
  async function downService(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ port: number; up: () => void }> {
    let isUp = false;
    const server = createServer(handler);
    server.prependListener('connection', (socket: Socket) => {
      if (!isUp) socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    upstreams.push({ port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    return { port, up: () => (isUp = true) };
  }

  beforeAll(async () => {
    t = await startJunction({ autoRetry: { scanIntervalMs: 10_000 } }, { timers });
    admin = { authorization: await unlockRoot(t) };
    t.junction.events.on('transaction.autoRetryMaxAttempted', (e) => exhausted.push(e));
  });

  afterAll(async () => {
    await t.destroy();
    for (const upstream of upstreams) await upstream.close();
  });

  it('retries after a connection error, waiting the channel period, and stops once a retry succeeds', async () => {
    const hits: string[] = [];
    const service = await downService((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('back up');
    });
    await channel('flaky', service.port, { autoRetryPeriodMinutes: 3, autoRetryMaxAttempts: 5 });
    const original = await send('/flaky');
    expect(original).toMatchObject({ status: 'Failed', autoRetry: true, autoRetryAttempt: 0 });
    const retries = async () => (await chain(original._id)).length - 1;

    // Not before the channel's period; then once, still failing, and queued again. (Only the first wait is checked
    // to the minute: the retries' own request times are real, not this clock's.)
    await minutes(2);
    expect(await retries()).toBe(0);
    await minutes(2);
    expect(await retries()).toBe(1);
    const [, firstRetry] = await chain(original._id);
    expect(firstRetry).toMatchObject({ status: 'Failed', parentID: original._id, autoRetryAttempt: 1, autoRetry: true });
    service.up();
    await minutes(4);
    const after = await chain(original._id);
    expect(after.map((tx) => tx.autoRetryAttempt)).toEqual([0, 1, 2]);
    expect(after.at(-1)).toMatchObject({ status: 'Successful', autoRetry: false });
    expect(after.slice(0, -1).every((tx) => tx.wasRerun === true && tx.autoRetry === false && tx.childIDs?.length === 1)).toBe(true);
    expect(hits).toEqual(['/flaky']);
    // Nothing more once a retry succeeded.
    await minutes(10);
    expect(await chain(original._id)).toHaveLength(3);
    expect(await t.junction.store.autoRetries.count({})).toBe(0);
  });

  it('stops at the maximum attempts and emits the max-attempted event once', async () => {
    const dead = await downService(() => undefined);
    await channel('dead', dead.port, { autoRetryPeriodMinutes: 1, autoRetryMaxAttempts: 3 });
    const original = await send('/dead');
    for (let i = 0; i < 6; i++) await minutes(2);
    const after = await chain(original._id);
    expect(after.map((tx) => [tx.status, tx.autoRetryAttempt, tx.autoRetry])).toEqual([
      ['Failed', 0, false],
      ['Failed', 1, false],
      ['Failed', 2, false],
      ['Failed', 3, false],
    ]);
    const events = exhausted.filter((e) => e.channelID === original.channelID);
    expect(events).toEqual([expect.objectContaining({ transactionId: after[3]?._id, attempts: 3, maxAttempts: 3 })]);
  });

  it('retries a timeout too', async () => {
    const silent = await httpUpstream(() => undefined);
    upstreams.push(silent);
    await channel('slow', silent.port, { timeout: 100, autoRetryPeriodMinutes: 1, autoRetryMaxAttempts: 1 });
    const original = await send('/slow');
    expect(original).toMatchObject({ status: 'Failed', autoRetry: true });
    await minutes(2);
    const all = await chain(original._id);
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ autoRetryAttempt: 1, status: 'Failed' });
  });

  it('after a crash mid-retry, records a retry that was stored and sends one that was not, each once', async () => {
    const hits: string[] = [];
    const counting = await httpUpstream((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    upstreams.push(counting);
    await channel('recovered', counting.port, { urlPattern: '^/recovered/.*$', autoRetryPeriodMinutes: 10 });
    const stored = await send('/recovered/stored');
    const unstored = await send('/recovered/unstored');
    // An admin queues both by hand (the API writes through the queueing log too)...
    for (const tx of [stored, unstored]) {
      expect((await t.request(`/transactions/${tx._id}`, { method: 'PUT', headers: admin, json: { autoRetry: true } })).status).toBe(200);
    }
    // ...and a crash interrupted both retries: one after its transaction was stored (so sent), one before.
    const at = new Date();
    const retry = await t.junction.transactions.insert({ ...stored, _id: newTransactionId(at), request: { ...stored.request, timestamp: at }, parentID: stored._id, autoRetryAttempt: 1 });
    await t.junction.store.autoRetries.updateById(stored._id, { set: { childID: retry._id } });
    await t.junction.store.autoRetries.updateById(unstored._id, { set: { childID: newTransactionId(at) } });

    await minutes(11);
    expect(await t.junction.store.autoRetries.count({})).toBe(0);
    await minutes(30);
    expect(hits.filter((h) => h === '/recovered/stored')).toHaveLength(1);
    expect(hits.filter((h) => h === '/recovered/unstored')).toHaveLength(2);
    expect(await t.junction.transactions.get(stored._id)).toMatchObject({ autoRetry: false, wasRerun: true, childIDs: [retry._id] });
    const [, unstoredRetry] = await chain(unstored._id);
    expect(unstoredRetry).toMatchObject({ parentID: unstored._id, autoRetryAttempt: 1, status: 'Successful' });
  });

  it('does not retry an upstream 5xx', async () => {
    let hits = 0;
    const failing = await httpUpstream((_req, res) => {
      hits++;
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
    });
    upstreams.push(failing);
    await channel('five-hundred', failing.port, { autoRetryPeriodMinutes: 1 });
    const original = await send('/five-hundred');
    expect(original).toMatchObject({ status: 'Failed', autoRetry: false, response: { status: 503 } });
    await minutes(8);
    expect(hits).toBe(1);
    expect(await t.junction.transactions.get(original._id)).toMatchObject({ autoRetry: false });
    expect((await t.junction.transactions.get(original._id))?.childIDs).toBeUndefined();
  });
});
