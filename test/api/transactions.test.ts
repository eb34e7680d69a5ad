import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';

interface Tx {
  _id: string;
  status: string;
  channelID: string;
  clientID?: string;
  request: { path: string; method: string; headers?: Record<string, string>; body?: string; bodyTruncated?: boolean; timestamp: string };
  response?: { status: number; headers?: Record<string, string>; body?: string; bodyTruncated?: boolean };
  routes?: unknown[];
  orchestrations?: unknown[];
  properties?: Record<string, string>;
  [key: string]: unknown;
}

const MAX_BODY = 4096;

describe('transactions API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };
  let outsider: { authorization: string };
  const upstreams: Upstream[] = [];
  const channels: Record<string, string> = {};
  let labClientId = '';
  /** Transaction ids in the order they were sent. */
  const ids: Record<string, string> = {};
  const order: string[] = [];

  const get = (path: string, headers = admin) => t.inject(path, { headers });
  const list = async (query: string, headers = admin): Promise<Tx[]> => {
    const res = await get(`/transactions${query}`, headers);
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    return res.body as Tx[];
  };
  const filtered = (filters: unknown, extra = '', headers = admin) => list(`?filterLimit=100&filters=${encodeURIComponent(JSON.stringify(filters))}${extra}`, headers);
  const errorPaths = (res: TestResponse) => (res.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path);

  const completed = (id: string | null): Promise<TransactionRecord> => completedTransaction(t, id);

  /** Sends a real request through the HTTP port and waits until its transaction is stored complete. */
  async function send(name: string, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<void> {
    const res = await fetch(`${t.httpUrl}${path}`, init);
    await res.arrayBuffer();
    const tx = await completed(res.headers.get('x-openhim-transactionid'));
    ids[name] = tx._id;
    order.push(tx._id);
    // Distinct request timestamps keep "newest first" unambiguous.
    await new Promise((resolve) => setTimeout(resolve, 15));
  }

  async function channel(name: string, extra: Record<string, unknown>): Promise<void> {
    const res = await t.inject('/channels', { method: 'POST', headers: admin, json: { name, authType: 'public', ...extra } });
    if (res.status !== 201) throw new Error(`channel: ${res.status} ${res.text}`);
    channels[name] = (res.body as { _id: string })._id;
  }

  async function user(email: string, groups: string[]): Promise<{ authorization: string }> {
    const password = 'user-password-123';
    const res = await t.inject('/users', { method: 'POST', headers: admin, json: { email, firstname: 'A', surname: 'B', groups, password } });
    if (res.status !== 201) throw new Error(res.text);
    return { authorization: basic(email, password) };
  }

  beforeAll(async () => {
    t = await startJunction({ router: { maxBodyBytes: MAX_BODY } });
    admin = { authorization: await unlockRoot(t) };
    nurse = await user('nina@clinic.example', ['nurses']);
    outsider = await user('olga@clinic.example', ['visitors']);

    const echo = await httpUpstream((req, res) => {
      void readBody(req).then((text) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'echo' });
        res.end(JSON.stringify({ echoed: text.slice(0, 100), path: req.url }));
      });
    });
    const fail = await httpUpstream((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"boom"}');
    });
    const missing = await httpUpstream((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not here"}');
    });
    upstreams.push(echo, fail, missing);
    const route = (u: Upstream) => [{ name: 'p', host: '127.0.0.1', port: u.port, primary: true }];

    await channel('meta', { urlPattern: '^/meta/.*$', routes: route(echo), txViewAcl: ['nurses'] });
    await channel('full', { urlPattern: '^/full/.*$', routes: route(echo), txViewFullAcl: ['nurses'] });
    await channel('hidden', { urlPattern: '^/hidden$', routes: route(fail), txViewAcl: ['lab'], txRerunAcl: ['nurses'] });
    await channel('missing', { urlPattern: '^/missing$', routes: route(missing), txViewAcl: ['nurses'] });
    await channel('private', { urlPattern: '^/private$', authType: 'private', allow: ['lab-role'], routes: route(echo), txViewFullAcl: ['nurses'] });

    const client = await t.inject('/clients', { method: 'POST', headers: admin, json: { clientID: 'lab', name: 'Lab', roles: ['lab-role'], password: 'lab-client-pass-1' } });
    if (client.status !== 201) throw new Error(client.text);
    labClientId = (client.body as { _id: string })._id;

    await send('meta', '/meta/a?x=1,2', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    await send('full', '/full/b', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"b":2}' });
    await send('hidden', '/hidden');
    await send('private', '/private', { headers: { authorization: basic('lab', 'lab-client-pass-1') } });
    await send('missing', '/missing?=cmd');
    await send('big', '/full/big', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(MAX_BODY + 1000) });
  });

  afterAll(async () => {
    await t.destroy();
    for (const u of upstreams) await u.close();
  });

  const newestFirst = () => [...order].reverse();

  it('lists newest first in the default representation, with limit and page', async () => {
    const all = await list('');
    expect(all.map((tx) => tx._id)).toEqual(newestFirst());
    const first = all[0];
    expect(first).toMatchObject({ status: 'Successful', channelID: channels.full, request: { method: 'PUT', path: '/full/big' }, response: { status: 200 } });
    // The default representation leaves out bodies, headers, routes and orchestrations.
    expect(first?.request).not.toHaveProperty('body');
    expect(first?.request).not.toHaveProperty('headers');
    expect(first?.response).not.toHaveProperty('headers');
    expect(first).not.toHaveProperty('routes');
    expect(first).not.toHaveProperty('orchestrations');
    expect(JSON.stringify(all)).not.toContain('"path":"20');

    expect((await list('?filterLimit=2')).map((tx) => tx._id)).toEqual(newestFirst().slice(0, 2));
    expect((await list('?filterLimit=2&filterPage=1')).map((tx) => tx._id)).toEqual(newestFirst().slice(2, 4));
    expect((await list('?filterLimit=2&filterPage=3')).map((tx) => tx._id)).toEqual([]);
    // filterLimit=0 is no limit, as in OpenHIM (streamed), and answers what one large page does.
    expect(await list('?filterLimit=0')).toEqual(all);
    expect((await list('?filterLimit=0&filterPage=3')).map((tx) => tx._id)).toEqual(newestFirst());
    expect((await list('?filterLimit=5000&filterPage=0')).map((tx) => tx._id)).toEqual(newestFirst());
    expect(await list('?filterLimit=5000&filterPage=1')).toEqual([]);
  });

  it('filters by status, status code and class, channel, client, method, path, date range and properties', async () => {
    const idsOf = (txs: Tx[]) => txs.map((tx) => tx._id);
    expect(idsOf(await filtered({ status: 'Failed' }))).toEqual([ids.hidden]);
    expect(idsOf(await filtered({ status: ['Failed', 'Completed'] }))).toEqual([ids.missing, ids.hidden]);
    expect(idsOf(await filtered({ 'response.status': '5xx' }))).toEqual([ids.hidden]);
    expect(idsOf(await filtered({ 'response.status': '4xx' }))).toEqual([ids.missing]);
    expect(idsOf(await filtered({ 'response.status': 404 }))).toEqual([ids.missing]);
    expect(idsOf(await filtered({ 'response.status': '2xx' }))).toEqual([ids.big, ids.private, ids.full, ids.meta]);
    expect(idsOf(await filtered({ channelID: channels.full }))).toEqual([ids.big, ids.full]);
    expect(idsOf(await filtered({ clientID: labClientId }))).toEqual([ids.private]);
    expect(idsOf(await filtered({ 'request.method': 'post' }))).toEqual([ids.full, ids.meta]);
    expect(idsOf(await filtered({ 'request.path': '^/full/' }))).toEqual([ids.big, ids.full]);

    const stamp = async (id: string | undefined) => (await t.junction.transactions.get(id ?? ''))?.request.timestamp.toISOString();
    const range = JSON.stringify({ $gte: await stamp(ids.hidden), $lte: await stamp(ids.private) });
    expect(idsOf(await filtered({ 'request.timestamp': range }))).toEqual([ids.private, ids.hidden]);
    expect(idsOf(await filtered({ 'request.timestamp': { $gte: await stamp(ids.missing) } }))).toEqual([ids.big, ids.missing]);
    expect(idsOf(await filtered({ 'request.timestamp': { $lte: '2001-01-01T00:00:00Z' } }))).toEqual([]);

    await t.junction.transactions.update(ids.meta ?? '', { set: { properties: { site: 'north' } } });
    expect(idsOf(await filtered({ properties: { site: 'north' } }))).toEqual([ids.meta]);
    expect(idsOf(await filtered({ properties: { site: 'south' } }))).toEqual([]);
    // The filters OpenHIM's console sends beyond those: null is "the property is set", regexes ignore case as OpenHIM's do.
    expect(idsOf(await filtered({ properties: { site: null } }))).toEqual([ids.meta]);
    expect(idsOf(await filtered({ 'request.querystring': 'X=1' }))).toEqual([ids.meta]);
    expect(idsOf(await filtered({ 'request.path': '^/FULL/' }))).toEqual([ids.big, ids.full]);
    // A secondary route and a mediator's orchestration, as the pipeline records them.
    const at = new Date();
    const exchange = (name: string, path: string, status: number) => ({ name, request: { host: 'up.local', port: 8080, path, querystring: '', method: 'GET', headers: {}, timestamp: at }, response: { status, headers: {}, timestamp: at } });
    await t.junction.transactions.update(ids.full ?? '', { set: { routes: [exchange('audit', '/Full/audit', 201), exchange('copy', '/copy', 503)], orchestrations: [exchange('mpi', '/mpi', 200)] } });
    const records = await Promise.all(newestFirst().map(async (id) => (await t.junction.transactions.get(id)) as TransactionRecord));
    const port = records[0]?.request.port;
    expect(idsOf(await filtered({ 'request.host': records[0]?.request.host, 'request.port': String(port) }))).toEqual(records.filter((r) => r.request.port === port).map((r) => r._id));
    expect(idsOf(await filtered({ childIDs: JSON.stringify({ $exists: true, $ne: [] }) }))).toEqual([]);
    expect(idsOf(await filtered({ childIDs: JSON.stringify({ $eq: [] }) }))).toEqual(newestFirst());
    const routed = (match: (status: number, path: string) => boolean) =>
      records.filter((r) => r.routes.some((route) => match(route.response?.status ?? 0, route.request.path))).map((r) => r._id);
    expect(routed(() => true).length).toBeGreaterThan(0);
    expect(idsOf(await filtered({ 'routes.response.status': '2xx' }))).toEqual(routed((status) => status >= 200 && status < 300));
    expect(idsOf(await filtered({ 'routes.response.status': '2xx', 'routes.request.path': '^/FULL/' }))).toEqual(routed((status, path) => status < 300 && /^\/full\//i.test(path)));
    expect(idsOf(await filtered({ 'routes.response.status': '5xx', 'routes.request.path': '^/FULL/' }))).toEqual([]);
    expect(idsOf(await filtered({ 'routes.request.host': 'up.local', 'routes.request.port': 8080 }))).toEqual([ids.full]);
    expect(idsOf(await filtered({ 'orchestrations.response.status': '2xx', 'orchestrations.request.path': 'mpi' }))).toEqual([ids.full]);
    expect(idsOf(await filtered({ 'orchestrations.response.status': '4xx' }))).toEqual([]);
    await t.junction.transactions.update(ids.full ?? '', { set: { routes: [], orchestrations: [] } });
  });

  it('lists a client’s transactions by the client _id', async () => {
    const res = await get(`/transactions/clients/${labClientId}`);
    expect(res.status).toBe(200);
    expect((res.body as Tx[]).map((tx) => tx._id)).toEqual([ids.private]);
    expect((res.body as Tx[])[0]?.clientID).toBe(labClientId);
    expect((await get('/transactions/clients/000000000000000000000000')).body).toEqual([]);
  });

  it('honours the representations', async () => {
    const one = async (representation: string) => {
      const txs = await filtered({ channelID: channels.full }, `&filterRepresentation=${representation}`);
      return txs.find((tx) => tx._id === ids.full);
    };
    const details = await one('simpledetails');
    expect(details?.request.headers).toMatchObject({ 'content-type': 'application/json' });
    expect(details?.response?.headers).toMatchObject({ 'x-upstream': 'echo' });
    expect(details?.routes).toEqual([]);
    expect(details?.request).not.toHaveProperty('body');

    const full = await one('full');
    expect(full?.request).toMatchObject({ body: '{"b":2}', bodyTruncated: false });
    expect(JSON.parse(full?.response?.body ?? '{}')).toMatchObject({ echoed: '{"b":2}' });

    const big = (await filtered({ channelID: channels.full }, '&filterRepresentation=full')).find((tx) => tx._id === ids.big);
    expect(big?.request.body).toHaveLength(MAX_BODY);
    expect(big?.request.bodyTruncated).toBe(true);
    const bigTruncated = (await filtered({ channelID: channels.full }, '&filterRepresentation=fulltruncate')).find((tx) => tx._id === ids.big);
    expect(bigTruncated?.request.body).toHaveLength(1024);
    expect(bigTruncated?.request.bodyTruncated).toBe(true);
    expect((await one('fulltruncate'))?.request).toMatchObject({ body: '{"b":2}', bodyTruncated: false });

    const count = await get(`/transactions?filterRepresentation=bulkrerun&filters=${encodeURIComponent('{"response.status":"2xx"}')}`);
    expect(count.body).toEqual({ count: 4, transactions: [ids.big, ids.private, ids.full, ids.meta].map((_id) => ({ _id, channelID: expect.any(String) as unknown, canRerun: expect.any(Boolean) as unknown })) });
    // As OpenHIM's console asks before a bulk re-run: a large page, streamed beyond 1,000, answers the same.
    const large = await get(`/transactions?filterRepresentation=bulkrerun&filterLimit=10000&filters=${encodeURIComponent('{"response.status":"2xx"}')}`);
    expect(large.body).toEqual(count.body);
    expect((await get('/transactions?filterRepresentation=everything')).status).toBe(400);
  });

  it('gets one transaction in full, 404 for an unknown id', async () => {
    const res = await get(`/transactions/${ids.meta}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: ids.meta, request: { body: '{"a":1}', bodyTruncated: false, querystring: 'x=1,2', headers: {} }, routes: [] });
    expect(JSON.stringify(res.body)).not.toContain(`"path":"${new Date().getUTCFullYear()}`);
    const truncated = await get(`/transactions/${ids.big}?filterRepresentation=fulltruncate`);
    expect((truncated.body as Tx).request.body).toHaveLength(1024);
    const unknown = await get('/transactions/000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect((await get(`/transactions/${ids.meta}?colour=red`)).status).toBe(400);
  });

  it('shows non-admins only the channels their groups may view, and bodies only through txViewFullAcl', async () => {
    const seen = await list('?filterLimit=100&filterRepresentation=full', nurse);
    expect(seen.map((tx) => tx._id)).toEqual(newestFirst().filter((id) => id !== ids.hidden));
    const meta = seen.find((tx) => tx._id === ids.meta);
    expect(meta?.request).not.toHaveProperty('body');
    expect(meta?.request.headers).toBeDefined();
    expect(seen.find((tx) => tx._id === ids.full)?.request.body).toBe('{"b":2}');

    expect((await get(`/transactions/${ids.meta}`, nurse)).body).not.toHaveProperty('request.body');
    expect((await get(`/transactions/${ids.full}`, nurse)).body).toMatchObject({ request: { body: '{"b":2}' } });
    expect((await get(`/transactions/${ids.hidden}`, nurse)).status).toBe(403);
    // A channel filter outside the user's channels is refused, as in OpenHIM, rather than answered with nothing.
    const forbidden = await get(`/transactions?filters=${encodeURIComponent(JSON.stringify({ channelID: channels.hidden }))}`, nurse);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringContaining(channels.hidden ?? '') as unknown } });
    expect((await get(`/transactions/export?filters=${encodeURIComponent(JSON.stringify({ channelID: [channels.full, channels.hidden] }))}`, nurse)).status).toBe(403);
    expect((await get(`/transactions?filterRepresentation=bulkrerun`, nurse)).body).toMatchObject({ count: order.length - 1 });
    // Streamed (filterLimit=0), every row still gets the user's permissions and the representation.
    const streamed = await list('?filterLimit=0&filterRepresentation=full', nurse);
    expect(streamed).toEqual(seen);
    expect((await get(`/transactions?filterLimit=0&filterRepresentation=bulkrerun`, nurse)).body).toMatchObject({ count: order.length - 1 });

    expect(await list('', outsider)).toEqual([]);
    expect((await get(`/transactions/${ids.meta}`, outsider)).status).toBe(403);
    expect((await get(`/transactions/${ids.meta}`, outsider)).body).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it('lets only admins update and delete, with strictly validated changes', async () => {
    const id = ids.missing ?? '';
    const put = (json: unknown, headers = admin) => t.inject(`/transactions/${id}`, { method: 'PUT', headers, json });
    expect((await put({ properties: { ticket: 'INC-1' } }, nurse)).status).toBe(403);
    expect((await t.inject(`/transactions/${id}`, { method: 'DELETE', headers: nurse })).status).toBe(403);

    const updated = await put({ properties: { ticket: 'INC-1' }, status: 'Successful', wasRerun: true, autoRetry: false });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ _id: id, properties: { ticket: 'INC-1' }, status: 'Successful', wasRerun: true, autoRetry: false });
    expect((await t.junction.transactions.get(id))?.properties).toEqual({ ticket: 'INC-1' });

    expect(errorPaths(await put({ channelID: 'x' }))).toEqual(['body.channelID']);
    expect(errorPaths(await put({ status: 'Done' }))).toEqual(['body.status']);
    expect(errorPaths(await put({ properties: { ticket: 5 } }))[0]).toMatch(/^body\.properties/);
    expect((await put({})).status).toBe(400);
    expect((await t.inject('/transactions/000000000000000000000000', { method: 'PUT', headers: admin, json: { wasRerun: true } })).status).toBe(404);

    const removed = await t.inject(`/transactions/${id}`, { method: 'DELETE', headers: admin });
    expect(removed.status).toBe(200);
    expect(await t.junction.transactions.get(id)).toBeNull();
    expect((await t.inject(`/transactions/${id}`, { method: 'DELETE', headers: admin })).status).toBe(404);
    order.splice(order.indexOf(id), 1);
  });

  it('refuses bad filters with 400 naming the key', async () => {
    const bad = async (filters: string, paths: string[]) => {
      const res = await get(`/transactions?filters=${encodeURIComponent(filters)}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
      expect(errorPaths(res)).toEqual(paths);
    };
    await bad('{oops', ['querystring.filters']);
    await bad('{"colour":"red"}', ['querystring.filters.colour']);
    await bad('{"status":"Great"}', ['querystring.filters.status']);
    await bad('{"response.status":"9xx"}', ['querystring.filters.response.status']);
    await bad('{"request.timestamp":"{\\"$gte\\":\\"soon\\"}"}', ['querystring.filters.request.timestamp.$gte']);
    await bad('{"request.timestamp":{"$gte":"2024-02-01","$lte":"2024-01-01"}}', ['querystring.filters.request.timestamp']);
    expect(errorPaths(await get('/transactions?filterLimit=100001'))).toEqual(['querystring.filterLimit']);
    expect(errorPaths(await get('/transactions?filterLimit=-1'))).toEqual(['querystring.filterLimit']);
    await bad('{"routes.response.colour":"red"}', ['querystring.filters.routes.response.colour']);
    await bad(JSON.stringify({ childIDs: JSON.stringify({ $size: 2 }) }), ['querystring.filters.childIDs']);
    await bad('{"request.port":"eighty"}', ['querystring.filters.request.port']);
    await bad('{"orchestrations.request.path":"(?<=a)b"}', ['querystring.filters.orchestrations.request.path']);
    expect(errorPaths(await get('/transactions?filterPage=-1'))).toEqual(['querystring.filterPage']);
    expect(errorPaths(await get('/transactions?limit=5'))).toEqual(['querystring.limit']);
    expect((await get('/transactions/export?filters=%7B%22x%22%3A1%7D')).status).toBe(400);
  });

  it('exports NDJSON, with bodies on request for permitted users only', async () => {
    const res = await get('/transactions/export?format=ndjson');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="transactions-.*\.ndjson"$/);
    const lines = res.text.trimEnd().split('\n').map((line) => JSON.parse(line) as Tx);
    expect(lines.map((tx) => tx._id)).toEqual(newestFirst());
    expect(lines[0]?.request).not.toHaveProperty('body');
    expect(lines[0]).not.toHaveProperty('routes');

    const withBodies = await get(`/transactions/export?bodies=true&filters=${encodeURIComponent(JSON.stringify({ channelID: channels.full }))}`);
    const exported = withBodies.text.trimEnd().split('\n').map((line) => JSON.parse(line) as Tx);
    expect(exported.map((tx) => tx._id)).toEqual([ids.big, ids.full]);
    expect(exported[1]?.request).toMatchObject({ body: '{"b":2}', bodyTruncated: false });
    expect(exported[0]?.request).toMatchObject({ bodyTruncated: true });

    // The nurse may export metadata of every channel she sees, but bodies only of txViewFullAcl channels.
    const nurseAll = await get('/transactions/export', nurse);
    expect(nurseAll.text.trimEnd().split('\n')).toHaveLength(order.length - 1);
    const refused = await get('/transactions/export?bodies=true', nurse);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    const permitted = await get(`/transactions/export?bodies=true&filters=${encodeURIComponent(JSON.stringify({ channelID: [channels.full, channels.private] }))}`, nurse);
    expect(permitted.status).toBe(200);
    expect(permitted.text).toContain('{\\"b\\":2}');
    expect((await get('/transactions/export', outsider)).text).toBe('');
    expect((await get('/transactions/export?format=xml')).status).toBe(400);
  });

  it('exports CSV with a fixed header and escaped cells', async () => {
    const res = await get('/transactions/export?format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="transactions-.*\.csv"$/);
    const rows = res.text.split('\r\n');
    // The columns of earlier versions first, in their order; the names and the reason (issue 36) after them.
    expect(rows[0]).toBe('_id,timestamp,status,channelID,clientID,clientIP,method,path,querystring,responseStatus,durationMs,channelName,clientName,reason');
    expect(rows.at(-1)).toBe('');
    expect(rows).toHaveLength(order.length + 2);
    const meta = rows.find((row) => row.startsWith(`${ids.meta},`)) ?? '';
    const stored = await t.junction.transactions.get(ids.meta ?? '');
    expect(meta).toMatch(new RegExp(`^${ids.meta},${stored?.request.timestamp.toISOString()},Successful,${channels.meta},,127\\.0\\.0\\.1,POST,/meta/a,"x=1,2",200,\\d+,meta,,$`));
    const priv = rows.find((row) => row.startsWith(`${ids.private},`)) ?? '';
    expect(priv.split(',')[4]).toBe(labClientId);
    expect(priv.split(',')[9]).toBe('200');
    expect(priv.split(',').slice(11)).toEqual(['private', 'Lab', '']);
    const hidden = rows.find((row) => row.startsWith(`${ids.hidden},`)) ?? '';
    expect(hidden.split(',').slice(11)).toEqual(['hidden', '', '"500: {""error"":""boom""}"']);

    const nurseCsv = await get(`/transactions/export?format=csv&filters=${encodeURIComponent('{"response.status":"5xx"}')}`, nurse);
    expect(nurseCsv.text.split('\r\n')).toEqual(['_id,timestamp,status,channelID,clientID,clientIP,method,path,querystring,responseStatus,durationMs,channelName,clientName,reason', '']);
  });
});
