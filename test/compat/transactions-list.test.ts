/**
 * OpenHIM compatibility: the transaction lists as OpenHIM's console (app/scripts/controllers/transactions.js) and
 * integration tests (transactionsAPITests.js) call them: `filterPage`/`filterLimit` paging, `filterLimit=0` (no limit),
 * every filter the console builds into its `filters` JSON, the bulk re-run count with the console's 10,000 limit, the
 * client's list, and a non-admin filtering on a channel they may not view (403).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { completedTransaction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { startCompat } from './openhim-caller.js';
import type { Caller, CompatJunction, TestResponse } from './openhim-caller.js';

interface Tx {
  _id: string;
  channelID: string;
  status: string;
  request: { path: string; querystring: string; method: string; host?: string; port?: number; timestamp: string; headers?: unknown; body?: unknown };
  response?: { status: number; timestamp: string };
  [key: string]: unknown;
}

describe('OpenHIM compatibility: transaction lists and filters', () => {
  let c: CompatJunction;
  let upstream: Upstream;
  let nurse: Caller;
  const channels: Record<string, string> = {};
  /** Transaction ids, newest first. */
  const newest: string[] = [];
  const ids: Record<string, string> = {};
  let clientId = '';

  /** The console's query: `filterPage`, `filterLimit` and `filters` as JSON text. */
  const query = (filters: Record<string, unknown>, extra: Record<string, string | number> = {}) =>
    `/transactions?${new URLSearchParams({ filterPage: '0', filterLimit: '20', ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)])), filters: JSON.stringify(filters) }).toString()}`;
  const idsOf = (res: TestResponse) => {
    expect(res.status, res.text).toBe(200);
    return (res.body as Tx[]).map((tx) => tx._id);
  };

  async function send(name: string, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<void> {
    const res = await fetch(`${c.t.httpUrl}${path}`, init);
    await res.arrayBuffer();
    ids[name] = (await completedTransaction(c.t, res.headers.get('x-openhim-transactionid')))._id;
    newest.unshift(ids[name]);
    // Distinct request times keep "newest first" unambiguous.
    await new Promise((resolve) => setTimeout(resolve, 15));
  }

  beforeAll(async () => {
    c = await startCompat();
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then(() => {
        res.writeHead(req.url?.includes('fail') === true ? 503 : 200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    const route = { name: 'up', host: '127.0.0.1', port: upstream.port, primary: true };
    for (const [name, urlPattern, acl] of [
      ['Ward', '^/ward/.*$', ['nurses']],
      ['Lab', '^/lab/.*$', []],
    ] as const) {
      const res = await c.root.post('/channels', { name, urlPattern, authType: 'public', txViewAcl: acl, routes: [route] });
      expect(res.status, res.text).toBe(201);
      channels[name] = (res.body as { _id: string })._id;
    }
    const client = await c.root.post('/clients', { clientID: 'his', name: 'HIS', roles: [], password: 'his-client-pass-1' });
    expect(client.status, client.text).toBe(201);
    clientId = (client.body as { _id: string })._id;
    nurse = await c.user('nora@ward.example', ['nurses']);

    await send('wardGet', '/ward/patients?patient=42&ward=east');
    await send('wardPost', '/ward/obs', { method: 'POST', body: '{"obs":1}', headers: { 'content-type': 'application/json' } });
    await send('labFail', '/lab/fail');
    await send('lab', '/lab/results?since=today');

    // What a mediator and a secondary route leave on a transaction (POST /transactions belongs to another area).
    const log = c.t.junction.transactions;
    const at = new Date();
    const exchange = (name: string, host: string, port: number, path: string, querystring: string, status: number) => ({
      name,
      request: { host, port, path, querystring, method: 'GET', headers: {}, timestamp: at },
      response: { status, headers: {}, timestamp: at },
    });
    await log.update(ids.wardPost ?? '', {
      set: {
        routes: [exchange('audit', 'audit.local', 8081, '/audit/obs', 'kind=obs', 201), exchange('copy', 'copy.local', 8082, '/copy', '', 500)],
        orchestrations: [exchange('mpi', 'mpi.local', 8090, '/mpi/Patient', 'identifier=42', 200)],
        properties: { ward: 'east', shift: 'night' },
        childIDs: ['0123456789abcdef01234567'],
        wasRerun: true,
      },
    });
    await log.update(ids.wardGet ?? '', { set: { clientID: clientId } });
  });

  afterAll(async () => {
    await c.destroy();
    await upstream.close();
  });

  it('lists newest first with filterPage and filterLimit, in OpenHIM field names and its default representation', async () => {
    const res = await c.root.get(query({}));
    expect(idsOf(res)).toEqual(newest);
    const first = (res.body as Tx[])[0];
    expect(first).toMatchObject({ _id: ids.lab, channelID: channels.Lab, status: 'Successful', canRerun: true, autoRetry: false, clientIP: expect.any(String) as unknown });
    expect(first?.request).toMatchObject({ path: '/lab/results', querystring: 'since=today', method: 'GET', timestamp: expect.any(String) as unknown });
    expect(first?.request).not.toHaveProperty('headers');
    expect(first).not.toHaveProperty('routes');
    expect(idsOf(await c.root.get(query({}, { filterLimit: 1, filterPage: 1 })))).toEqual([newest[1]]);
    expect(idsOf(await c.root.get(query({}, { filterLimit: 3, filterPage: 1 })))).toEqual([newest[3]]);
  });

  it('filterLimit=0 is no limit, as in OpenHIM, and the console poll without paging gets everything new', async () => {
    expect(idsOf(await c.root.get(query({}, { filterLimit: 0 })))).toEqual(newest);
    expect(idsOf(await c.root.get('/transactions?filterLimit=0'))).toEqual(newest);
    // pollForLatest: no filterPage or filterLimit, the time as moment().format() gives it.
    const since = JSON.stringify({ $gte: new Date(Date.now() - 60_000).toISOString().replace('Z', '+00:00') });
    expect(idsOf(await c.root.get(`/transactions?filters=${encodeURIComponent(JSON.stringify({ 'request.timestamp': since }))}`))).toEqual(newest);
    expect(idsOf(await c.root.get(query({}, { filterLimit: 0, filterRepresentation: 'full' })))).toEqual(newest);
  });

  it('understands every filter the console sends', async () => {
    const get = async (filters: Record<string, unknown>) => idsOf(await c.root.get(query(filters)));
    expect(await get({ status: 'Failed' })).toEqual([ids.labFail]);
    expect(await get({ status: 'Successful' })).toEqual([ids.lab, ids.wardPost, ids.wardGet]);
    expect(await get({ channelID: channels.Ward })).toEqual([ids.wardPost, ids.wardGet]);
    expect(await get({ 'response.status': '5xx' })).toEqual([ids.labFail]);
    expect(await get({ 'response.status': '200' })).toEqual([ids.lab, ids.wardPost, ids.wardGet]);
    expect(await get({ 'request.host': '127.0.0.1' })).toEqual(newest);
    const port = (await c.t.junction.transactions.get(ids.lab ?? ''))?.request.port;
    expect(await get({ 'request.port': String(port) })).toEqual(newest);
    expect(await get({ 'request.port': '1' })).toEqual([]);
    expect(await get({ 'request.path': '/WARD/' })).toEqual([ids.wardPost, ids.wardGet]);
    // txParamKey, then txParamKey=txParamValue, as the console joins them.
    expect(await get({ 'request.querystring': 'patient' })).toEqual([ids.wardGet]);
    expect(await get({ 'request.querystring': 'patient=42' })).toEqual([ids.wardGet]);
    expect(await get({ clientID: clientId })).toEqual([ids.wardGet]);
    expect(await get({ childIDs: JSON.stringify({ $exists: true, $ne: [] }) })).toEqual([ids.wardPost]);
    expect(await get({ childIDs: JSON.stringify({ $eq: [] }) })).toEqual([ids.lab, ids.labFail, ids.wardGet]);
    expect(await get({ properties: { ward: null } })).toEqual([ids.wardPost]);
    expect(await get({ properties: { ward: 'east' } })).toEqual([ids.wardPost]);
    expect(await get({ properties: { ward: 'west' } })).toEqual([]);
    expect(await get({ 'request.method': 'POST' })).toEqual([ids.wardPost]);
    expect(await get({ 'routes.response.status': '5xx' })).toEqual([ids.wardPost]);
    expect(await get({ 'routes.request.host': 'audit.local', 'routes.request.port': '8081' })).toEqual([ids.wardPost]);
    expect(await get({ 'routes.request.path': '^/audit', 'routes.request.querystring': 'kind=obs' })).toEqual([ids.wardPost]);
    expect(await get({ 'routes.response.status': '4xx' })).toEqual([]);
    expect(await get({ 'orchestrations.response.status': '2xx', 'orchestrations.request.host': 'mpi.local', 'orchestrations.request.port': '8090' })).toEqual([ids.wardPost]);
    expect(await get({ 'orchestrations.request.path': 'patient', 'orchestrations.request.querystring': 'identifier=42' })).toEqual([ids.wardPost]);
    expect(await get({ wasRerun: true })).toEqual([ids.wardPost]);
    const range = JSON.stringify({ $gte: new Date(Date.now() - 3_600_000).toISOString(), $lte: new Date(Date.now() + 60_000).toISOString() });
    expect(await get({ 'request.timestamp': range, channelID: channels.Lab, 'response.status': '2xx' })).toEqual([ids.lab]);
  });

  it('refuses an unknown filter, or a bad value, with 400 naming it (never a 500)', async () => {
    const problem = async (filters: Record<string, unknown>) => {
      const res = await c.root.get(query(filters));
      expect(res.status).toBe(400);
      return (res.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path);
    };
    expect(await problem({ 'request.colour': 'red' })).toEqual(['querystring.filters.request.colour']);
    expect(await problem({ 'routes.response.status': 'ok' })).toEqual(['querystring.filters.routes.response.status']);
    expect(await problem({ childIDs: '{"$where":"1"}' })).toEqual(['querystring.filters.childIDs']);
    expect((await c.root.get('/transactions?filters=not-json')).status).toBe(400);
    expect((await c.root.get('/transactions?filterLimit=100001')).status).toBe(400);
  });

  it('answers the console’s bulk re-run count (filterRepresentation=bulkrerun, filterLimit 10,000) with count and transactions', async () => {
    const res = await c.root.get(query({ channelID: channels.Ward }, { filterRepresentation: 'bulkrerun', filterLimit: 10000 }));
    expect(res.status).toBe(200);
    const body = res.body as { count: number; transactions: Record<string, unknown>[] };
    expect(body.count).toBe(2);
    expect(body.transactions.map((tx) => tx._id)).toEqual([ids.wardPost, ids.wardGet]);
    expect(body.transactions[0]).toEqual({ _id: ids.wardPost, channelID: channels.Ward, canRerun: true, childIDs: ['0123456789abcdef01234567'] });
  });

  it('GET /transactions/clients/:clientId lists the client’s transactions', async () => {
    expect(idsOf(await c.root.get(`/transactions/clients/${clientId}?filterPage=0&filterLimit=10`))).toEqual([ids.wardGet]);
    expect(idsOf(await c.root.get(`/transactions/clients/${clientId}?filterLimit=0`))).toEqual([ids.wardGet]);
  });

  it('a non-admin sees the channels their groups may view, and filtering on another channel is 403', async () => {
    expect(idsOf(await nurse.get(query({})))).toEqual([ids.wardPost, ids.wardGet]);
    expect(idsOf(await nurse.get(query({ channelID: channels.Ward })))).toEqual([ids.wardPost, ids.wardGet]);
    const forbidden = await nurse.get(query({ channelID: channels.Lab }));
    expect(forbidden.status).toBe(403);
    expect((await nurse.get(query({ channelID: channels.Lab }, { filterRepresentation: 'bulkrerun', filterLimit: 10000 }))).status).toBe(403);
    expect(idsOf(await nurse.get(query({}, { filterLimit: 0 })))).toEqual([ids.wardPost, ids.wardGet]);
    expect((await c.caller({}).get(query({}))).status).toBe(401);
  });
});
