/**
 * OpenHIM compatibility: transactions written through the API, as OpenHIM's integration tests
 * (transactionsAPITests.js, addTransaction/updateTransaction) and an asynchronous mediator call them: POST a whole
 * transaction (201), PUT fields and `$push` a route or an orchestration later (200), admins only (403), and bad
 * bodies refused with 400 and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveTransaction } from '../../service/contracts/live-feed.js';
import { startCompat } from './openhim-caller.js';
import type { Caller, CompatJunction } from './openhim-caller.js';

const MAX_BODY = 64 * 1024;

interface Part {
  path?: string;
  method?: string;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  timestamp: string;
}
interface Exchange {
  name: string;
  request: Part;
  response?: Part;
  error?: { message: string };
}
interface Tx {
  _id: string;
  status: string;
  channelID: string;
  clientID?: string;
  request: Part;
  response?: Part;
  routes: Exchange[];
  orchestrations: Exchange[];
  properties?: Record<string, string>;
  error?: { message: string; stack?: string };
  autoRetry: boolean;
  [key: string]: unknown;
}

/** The request part of OpenHIM's integration tests' transaction, with its body as text (Junction has no GridFS ids). */
const requestDoc = {
  path: '/api/test',
  headers: { 'header-title': 'header1-value', 'another-header': 'another-header-value' },
  querystring: 'param1=value1&param2=value2',
  body: '<HTTP body request>',
  method: 'POST',
  timestamp: '2014-06-09T11:17:25.929Z',
};
/** The response part: OpenHIM's tests send the status as text, which its model casts. */
const responseDoc = { status: '200', headers: { header: 'value', header2: 'value2' }, body: '<HTTP body response>', timestamp: '2014-06-09T11:17:25.929Z' };

describe('OpenHIM compatibility: transactions written through the API', () => {
  let c: CompatJunction;
  let channelID = '';
  let retryingChannelID = '';
  let nonAdmin: Caller;
  const completed: LiveTransaction[] = [];

  const transactionData = () => ({
    _id: '111111111111111111111111',
    status: 'Processing',
    clientID: '999999999999999999999999',
    channelID,
    request: requestDoc,
    response: responseDoc,
    routes: [{ name: 'dummy-route', request: requestDoc, response: responseDoc }],
    orchestrations: [{ name: 'dummy-orchestration', request: requestDoc, response: responseDoc }],
    properties: { prop1: 'prop1-value1', prop2: 'prop-value1' },
  });
  const full = async (id: string): Promise<Tx> => {
    const res = await c.root.get(`/transactions/${id}?filterRepresentation=full`);
    expect(res.status).toBe(200);
    return res.body as Tx;
  };
  const created = async (body: unknown): Promise<Tx> => {
    const res = await c.root.post('/transactions', body);
    expect(res.status, res.text).toBe(201);
    return res.body as Tx;
  };
  const count = async () => ((await c.root.get('/transactions?filterRepresentation=bulkrerun')).body as { count: number }).count;

  beforeAll(async () => {
    c = await startCompat({ router: { maxBodyBytes: MAX_BODY } });
    const channel = async (name: string, extra: Record<string, unknown> = {}) => {
      const res = await c.root.post('/channels', { name, urlPattern: `^/${name}$`, routes: [{ name: 'test route', host: 'localhost', port: 9876, primary: true }], txViewAcl: ['group1'], ...extra });
      if (res.status !== 201) throw new Error(res.text);
      return (res.body as { _id: string })._id;
    };
    channelID = await channel('TestChannel1');
    retryingChannelID = await channel('TestChannel2', { autoRetryEnabled: true, autoRetryPeriodMinutes: 60, autoRetryMaxAttempts: 5 });
    nonAdmin = await c.user('nonroot@jembi.org', ['group1']);
    c.t.junction.events.on('transaction.completed', (event) => completed.push(event));
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('POST /transactions stores the transaction (201), bodies and all, as a later GET shows', async () => {
    const tx = await created(transactionData());
    // Junction gives the transaction its own id, made from the request time: OpenHIM's `_id` is ignored.
    expect(tx._id).toMatch(/^[0-9a-f]{24}$/);
    expect(tx._id).not.toBe('111111111111111111111111');
    const got = await full(tx._id);
    expect(got).toMatchObject({ status: 'Processing', clientID: '999999999999999999999999', channelID, properties: { prop1: 'prop1-value1' } });
    expect(got.request).toMatchObject({ path: '/api/test', method: 'POST', querystring: 'param1=value1&param2=value2', body: '<HTTP body request>', timestamp: '2014-06-09T11:17:25.929Z' });
    expect(got.request.headers).toEqual({ 'header-title': 'header1-value', 'another-header': 'another-header-value' });
    expect(got.response).toMatchObject({ status: 200, body: '<HTTP body response>' });
    expect(got.routes[0]).toMatchObject({ name: 'dummy-route', request: { body: '<HTTP body request>' }, response: { status: 200, body: '<HTTP body response>' } });
    expect(got.orchestrations[0]).toMatchObject({ name: 'dummy-orchestration', response: { body: '<HTTP body response>' } });
  });

  it('only admins may POST or PUT transactions (403), and nothing is written', async () => {
    const before = await count();
    expect((await nonAdmin.post('/transactions', transactionData())).status).toBe(403);
    const tx = await created(transactionData());
    expect((await nonAdmin.put(`/transactions/${tx._id}`, { status: 'Completed' })).status).toBe(403);
    expect((await c.caller({}).post('/transactions', transactionData())).status).toBe(401);
    expect((await full(tx._id)).status).toBe('Processing');
    expect(await count()).toBe(before + 1);
  });

  it('PUT with a new request, status, clientID and a $push of a route with orchestrations (the integration test) answers 200', async () => {
    const tx = await created(transactionData());
    const res = await c.root.put(`/transactions/${tx._id}`, {
      request: { path: '/api/test/updated', headers: { 'Content-Type': 'text/javascript' }, querystring: 'updated=value', body: '<HTTP body update>', method: 'PUT' },
      status: 'Completed',
      clientID: '777777777777777777777777',
      $push: { routes: { name: 'async', request: { method: 'POST', path: '/async', body: 'data', timestamp: 1425897647329 }, response: { status: 201, body: 'OK', timestamp: 1425897688016 } } },
    });
    expect(res.status, res.text).toBe(200);
    const got = await full(tx._id);
    expect(got).toMatchObject({ status: 'Completed', clientID: '777777777777777777777777' });
    // Fields the PUT leaves out keep their values (the timestamp places the transaction in the log).
    expect(got.request).toMatchObject({ path: '/api/test/updated', method: 'PUT', querystring: 'updated=value', body: '<HTTP body update>', timestamp: '2014-06-09T11:17:25.929Z' });
    expect(got.request.headers).toEqual({ 'content-type': 'text/javascript' });
    expect(got.routes.map((r) => r.name)).toEqual(['dummy-route', 'async']);
    expect(got.routes[1]).toMatchObject({ request: { method: 'POST', body: 'data', timestamp: new Date(1425897647329).toISOString() }, response: { status: 201, body: 'OK' } });
    expect(got.routes[0]?.request.body).toBe('<HTTP body request>');
  });

  it('an asynchronous mediator completes a Processing transaction later: response, $push of an orchestration, status; the live feed hears it', async () => {
    const tx = await created({ ...transactionData(), response: undefined, routes: [], orchestrations: [] });
    completed.length = 0;
    const res = await c.root.put(`/transactions/${tx._id}`, {
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"done":true}', timestamp: new Date().toISOString() },
      $push: { orchestrations: { name: 'lookup', request: { method: 'GET', path: '/patients/1', timestamp: Date.now() }, response: { status: 200, body: '{"id":1}' } } },
      status: 'Successful',
    });
    expect(res.status, res.text).toBe(200);
    const got = await full(tx._id);
    expect(got.status).toBe('Successful');
    expect(got.response).toMatchObject({ status: 200, body: '{"done":true}' });
    expect(got.orchestrations).toHaveLength(1);
    expect(got.orchestrations[0]).toMatchObject({ name: 'lookup', request: { path: '/patients/1', method: 'GET' }, response: { status: 200, body: '{"id":1}' } });
    expect(completed).toEqual([{ transactionId: tx._id, channelID, status: 'Successful', method: 'POST', path: '/api/test', responseStatus: 200 }]);
    // Two later reports append, never replace.
    await c.root.put(`/transactions/${tx._id}`, { $push: { orchestrations: [{ name: 'second', request: { path: '/b' } }, { name: 'third', request: { path: '/c' } }] } });
    expect((await full(tx._id)).orchestrations.map((o) => o.name)).toEqual(['lookup', 'second', 'third']);
    expect(completed).toHaveLength(1);
  });

  it('a PUT reporting an error queues an auto retry on a channel that retries, as OpenHIM does', async () => {
    const tx = await created({ ...transactionData(), channelID: retryingChannelID });
    const res = await c.root.put(`/transactions/${tx._id}`, { status: 'Failed', error: { message: 'Error message', stack: 'stack\nstack\nstack' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'Failed', autoRetry: true, error: { message: 'Error message', stack: 'stack\nstack\nstack' } });
    expect(await c.t.junction.store.autoRetries.findById(tx._id)).not.toBeNull();
    const quiet = await created(transactionData());
    expect((await c.root.put(`/transactions/${quiet._id}`, { status: 'Failed', error: { message: 'Error message' } })).body).toMatchObject({ autoRetry: false });
  });

  it('a document fetched with GET and sent back unchanged with PUT answers 200 and stays the same', async () => {
    const tx = await created(transactionData());
    const before = await full(tx._id);
    const res = await c.root.put(`/transactions/${tx._id}`, before);
    expect(res.status, res.text).toBe(200);
    expect(await full(tx._id)).toEqual(before);
    // The default and simpledetails views carry no bodies: sending them back keeps the stored ones.
    const simple = (await c.root.get(`/transactions/${tx._id}?filterRepresentation=simpledetails`)).body;
    expect((await c.root.put(`/transactions/${tx._id}`, simple)).status).toBe(200);
    expect(await full(tx._id)).toEqual(before);
  });

  it('bad bodies are refused with 400 naming the field, and nothing is written', async () => {
    const tx = await created(transactionData());
    const before = await full(tx._id);
    const total = await count();
    const refused = async (call: Promise<{ status: number; body: unknown }>, path: RegExp) => {
      const res = await call;
      expect(res.status).toBe(400);
      const details = (res.body as { error: { details: { path: string }[] } }).error.details;
      expect(details.map((d) => d.path).join(' ')).toMatch(path);
    };
    await refused(c.root.post('/transactions', { ...transactionData(), channelID: '000000000000000000000000' }), /body\.channelID/);
    await refused(c.root.post('/transactions', { ...transactionData(), status: 'Done' }), /body\.status/);
    await refused(c.root.post('/transactions', { ...transactionData(), request: { ...requestDoc, timestamp: 'yesterday' } }), /body\.request\.timestamp/);
    await refused(c.root.post('/transactions', { ...transactionData(), request: { ...requestDoc, headers: { accept: 1 } } }), /body\.request\.headers/);
    await refused(c.root.post('/transactions', { ...transactionData(), request: { ...requestDoc, bodyId: '5c7d0a4b0e2e8e0001f3a1b2' } }), /body\.request/);
    await refused(c.root.post('/transactions', { ...transactionData(), surprise: true }), /body/);
    await refused(c.root.post('/transactions', { ...transactionData(), routes: [{ name: 'r', request: requestDoc, response: { ...responseDoc, status: 999 } }] }), /body\.routes\.0\.response\.status/);
    // A body over the router's limit anywhere refuses the whole write, including the parts that were fine.
    await refused(c.root.post('/transactions', { ...transactionData(), orchestrations: [{ name: 'o', request: { ...requestDoc, body: 'x'.repeat(MAX_BODY + 1) } }] }), /body\.orchestrations\.0\.request\.body/);
    expect(await count()).toBe(total);

    await refused(c.root.put(`/transactions/${tx._id}`, { status: 'Successful', response: { ...responseDoc, body: 'y'.repeat(MAX_BODY + 1) } }), /body\.response\.body/);
    await refused(c.root.put(`/transactions/${tx._id}`, { status: 'Successful', $push: { routes: { name: 'async' } } }), /body\.\$push\.routes/);
    await refused(c.root.put(`/transactions/${tx._id}`, { status: 'Successful', $push: { routes: { name: 'a', request: { path: '/' } } }, channelID: 'ffffffffffffffffffffffff' }), /body\.channelID/);
    await refused(c.root.put(`/transactions/${tx._id}`, { request: { timestamp: '2015-01-01T00:00:00Z' } }), /body\.request\.timestamp/);
    await refused(c.root.put(`/transactions/${tx._id}`, { $set: { status: 'Successful' } }), /body/);
    expect(await full(tx._id)).toEqual(before);
    expect((await c.root.put('/transactions/000000000000000000000000', { status: 'Successful' })).status).toBe(404);
  });

  it('DELETE /transactions/:id removes it (200), then 404; non-admins get 403', async () => {
    const tx = await created(transactionData());
    expect((await nonAdmin.delete(`/transactions/${tx._id}`)).status).toBe(403);
    expect((await c.root.delete(`/transactions/${tx._id}`)).status).toBe(200);
    expect((await c.root.get(`/transactions/${tx._id}`)).status).toBe(404);
    expect((await c.root.delete(`/transactions/${tx._id}`)).status).toBe(404);
  });
});
