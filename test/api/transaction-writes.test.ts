/**
 * Transactions written through the API, beyond what OpenHIM's callers do (test/compat/transactions-write.test.ts):
 * where the bodies go, what a cut body sent back does, the channel's body settings, and the live feed's events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveTransaction } from '../../service/contracts/live-feed.js';
import { SMALL_BODY_BYTES } from '../../service/domain/transactions/body-sizes.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';

interface Part {
  body?: string;
  bodyTruncated?: boolean;
  timestamp: string;
}
interface Tx {
  _id: string;
  status: string;
  request: Part;
  response?: Part;
  [key: string]: unknown;
}

describe('transactions written through the API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  const channels: Record<string, string> = {};
  const events: { type: string; event: LiveTransaction }[] = [];

  const call = (method: string, path: string, json?: unknown) => t.inject(path, { method, headers: admin, ...(json === undefined ? {} : { json }) });
  const post = async (json: Record<string, unknown>): Promise<Tx> => {
    const res = await call('POST', '/transactions', { status: 'Processing', channelID: channels.stored, request: { path: '/p', method: 'post', timestamp: '2024-05-01T10:00:00.000Z' }, ...json });
    if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
    return res.body as Tx;
  };
  const full = async (id: string, representation = 'full'): Promise<Tx> => (await call('GET', `/transactions/${id}?filterRepresentation=${representation}`)).body as Tx;

  beforeAll(async () => {
    t = await startJunction({ router: { maxBodyBytes: 4 * SMALL_BODY_BYTES } });
    admin = { authorization: await unlockRoot(t) };
    for (const [name, extra] of [['stored', {}], ['nobodies', { requestBody: false, responseBody: false }]] as const) {
      const res = await call('POST', '/channels', { name, urlPattern: `^/${name}$`, routes: [{ name: 'r', host: 'localhost', port: 9876, primary: true }], ...extra });
      if (res.status !== 201) throw new Error(res.text);
      channels[name] = (res.body as { _id: string })._id;
    }
    t.junction.events.on('transaction.started', (event) => events.push({ type: 'started', event }));
    t.junction.events.on('transaction.completed', (event) => events.push({ type: 'completed', event }));
  });
  afterAll(async () => {
    await t.destroy();
  });

  it('stores small bodies inline and large ones in body files, and shows both like proxied ones', async () => {
    const large = 'L'.repeat(SMALL_BODY_BYTES * 2);
    const tx = await post({ request: { path: '/p', method: 'POST', body: 'small', timestamp: '2024-05-01T10:00:00.000Z' }, response: { status: 200, body: large } });
    const stored = await t.junction.transactions.get(tx._id);
    expect(stored?.request.body).toMatchObject({ size: 5, truncated: false });
    expect(stored?.response?.body).toMatchObject({ size: large.length, truncated: false });
    expect(stored?.request.method).toBe('POST');
    const got = await full(tx._id);
    expect(got.request.body).toBe('small');
    expect(got.response?.body).toBe(large);
  });

  it('keeps the stored body when a cut body (fulltruncate) is sent back, and replaces it when new text is sent', async () => {
    const text = 'abc'.repeat(2000);
    const tx = await post({ request: { path: '/p', method: 'POST', body: text, timestamp: '2024-05-01T10:00:00.000Z' } });
    const cut = await full(tx._id, 'fulltruncate');
    expect(cut.request.bodyTruncated).toBe(true);
    expect((await call('PUT', `/transactions/${tx._id}`, cut)).status).toBe(200);
    expect((await full(tx._id)).request.body).toBe(text);
    expect((await call('PUT', `/transactions/${tx._id}`, { request: { body: 'new' } })).status).toBe(200);
    expect((await full(tx._id)).request).toMatchObject({ body: 'new', timestamp: '2024-05-01T10:00:00.000Z' });
  });

  it('follows the channel’s body settings: no bodies stored where the channel stores none', async () => {
    const tx = await post({ channelID: channels.nobodies, request: { path: '/p', body: 'secret', timestamp: '2024-05-01T10:00:00.000Z' }, response: { status: 200, body: 'secret too' } });
    const stored = await t.junction.transactions.get(tx._id);
    expect(stored?.request.body).toBeUndefined();
    expect(stored?.response?.body).toBeUndefined();
  });

  it('announces a recorded transaction as started, and as completed when it is written or changed out of Processing', async () => {
    events.length = 0;
    const open = await post({});
    expect(events).toEqual([{ type: 'started', event: { transactionId: open._id, channelID: channels.stored, status: 'Processing', method: 'POST', path: '/p' } }]);
    await call('PUT', `/transactions/${open._id}`, { properties: { step: '1' } });
    expect(events).toHaveLength(1);
    await call('PUT', `/transactions/${open._id}`, { status: 'Failed' });
    await call('PUT', `/transactions/${open._id}`, { status: 'Successful' });
    expect(events.slice(1)).toEqual([{ type: 'completed', event: { transactionId: open._id, channelID: channels.stored, status: 'Failed', method: 'POST', path: '/p' } }]);
    events.length = 0;
    const done = await post({ status: 'Successful', response: { status: 204 } });
    expect(events.map((e) => e.type)).toEqual(['started', 'completed']);
    expect(events[1]?.event).toMatchObject({ transactionId: done._id, status: 'Successful', responseStatus: 204 });
  });

  it('null removes an optional field, and refuses a port out of range or a request timestamp past 2106', async () => {
    const tx = await post({ clientID: 'c1', error: { message: 'x' }, properties: { a: 'b' }, response: { status: 200 } });
    const res = await call('PUT', `/transactions/${tx._id}`, { clientID: null, error: null, properties: null, response: null });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('clientID');
    expect(res.body).not.toHaveProperty('error');
    expect(res.body).not.toHaveProperty('properties');
    expect(res.body).not.toHaveProperty('response');
    expect((await call('PUT', `/transactions/${tx._id}`, { request: { port: '70000' } })).body).toMatchObject({ error: { details: [{ path: 'body.request.port' }] } });
    const far = await call('POST', '/transactions', { status: 'Processing', channelID: channels.stored, request: { timestamp: '2200-01-01T00:00:00Z' } });
    expect(far.status).toBe(400);
    expect(far.body).toMatchObject({ error: { details: [{ path: 'body.request.timestamp' }] } });
  });
});
