/** Auto retry against real upstream servers, with a 100 ms "minute" and a 100 ms scan (autoRetry.* config). */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { sleep, until } from '../helpers/wait.js';
import type { AutoRetryMaxAttemptedEvent } from '../../service/events/live.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';

const MINUTE_MS = 100;

describe('auto retry', () => {
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
    t = await startJunction({ autoRetry: { scanIntervalMs: 100, minuteMs: MINUTE_MS } });
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

    const [, firstRetry] = await until('the first retry', async () => {
      const found = await chain(original._id);
      return found.length >= 2 && found[1]?.status !== 'Processing' ? found : undefined;
    });
    expect(firstRetry).toMatchObject({ status: 'Failed', parentID: original._id, autoRetryAttempt: 1, autoRetry: true });
    service.up();

    const found = await until('the successful retry', async () => {
      const all = await chain(original._id);
      return all.at(-1)?.status === 'Successful' ? all : undefined;
    });
    await sleep(6 * MINUTE_MS);
    const after = await chain(original._id);
    expect(after).toHaveLength(found.length);
    expect(after.map((tx) => tx.autoRetryAttempt)).toEqual(after.map((_, i) => i));
    expect(after.at(-1)).toMatchObject({ status: 'Successful', autoRetry: false });
    expect(after.slice(0, -1).every((tx) => tx.wasRerun === true && tx.autoRetry === false && tx.childIDs?.length === 1)).toBe(true);
    expect(hits).toEqual(['/flaky']);
    // Each attempt waited at least the channel's period after the one before.
    for (let i = 1; i < after.length; i++) {
      const gap = (after[i]?.request.timestamp.getTime() ?? 0) - (after[i - 1]?.request.timestamp.getTime() ?? 0);
      expect(gap).toBeGreaterThanOrEqual(3 * MINUTE_MS);
    }
    expect(await t.junction.store.autoRetries.count({})).toBe(0);
  });

  it('stops at the maximum attempts and emits the max-attempted event once', async () => {
    const dead = await downService(() => undefined);
    await channel('dead', dead.port, { autoRetryPeriodMinutes: 1, autoRetryMaxAttempts: 3 });
    const original = await send('/dead');
    const found = await until('the last attempt to be given up', async () => {
      const all = await chain(original._id);
      return exhausted.some((e) => e.transactionId === all.at(-1)?._id) ? all : undefined;
    });
    await sleep(6 * MINUTE_MS);
    const after = await chain(original._id);
    expect(after).toHaveLength(4);
    expect(after).toHaveLength(found.length);
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
    const all = await until('the retry', async () => {
      const found = await chain(original._id);
      return found.length === 2 && found[1]?.status !== 'Processing' ? found : undefined;
    });
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
    // Ten "minutes" (1 s here) between a request and its retry: the set-up below (queue, then record the crash's
    // retry ids) has that long before a scan may send anything, instead of the one scan interval it had with 1.
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

    await until('both handled', async () => ((await t.junction.store.autoRetries.count({})) === 0 ? true : undefined));
    await sleep(4 * MINUTE_MS);
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
    await sleep(8 * MINUTE_MS);
    expect(hits).toBe(1);
    expect(await t.junction.transactions.get(original._id)).toMatchObject({ autoRetry: false });
    expect((await t.junction.transactions.get(original._id))?.childIDs).toBeUndefined();
  });
});
