/**
 * The transactions API's clinical search (issue 37) on both engines, through a real service whose own indexer indexes
 * the bodies of transactions written through `POST /transactions`: each key, `q`, `text`, combined with the other
 * filters and paged; the rows' `match`; the count, the export and the bulk re-run preview agreeing with the list;
 * permissions (channels a user may see; text only over bodies they may read, and nothing said of the rest); bad
 * parameters refused with 400s naming them; the index's status for admins; SEARCH_DISABLED while search is off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';
import { countMatches } from '../../service/api/transaction-search.js';
import { ESTIMATE_CAP } from '../../service/domain/transactions/transaction-search.js';
import { tx } from '../storage/transaction-log-contract.js';

interface Row {
  _id: string;
  channelID: string;
  status: string;
  match?: { name: string; field: string; value: string; authority?: string }[];
}

const adt = (control: string, mrn: string, authority: string, extra = '') =>
  [`MSH|^~\\&|ADT|SMH|LIS|LAB|20260115083000||ADT^A01^ADT_A01|${control}|P|2.5.1`, `PID|1||${mrn}^^^${authority}^MR~SSN-${mrn}^^^SSA^SS||Rivera^Ana`, `PV1|1|I|W2${extra}`].join('\r');
const oru = (control: string, mrn: string, order: string, words: string) =>
  [`MSH|^~\\&|LIS|LAB|EMR|SMH|20260115120000||ORU^R01^ORU_R01|${control}|P|2.5.1`, `PID|1||${mrn}^^^SMH^MR`, `OBR|1|${order}^CPOE|F-${order}^LIS|CBC^Blood count`, `OBX|1|TX|NOTE||${words}`].join('\r');

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describe.each(['embedded', 'postgres'] as const)('searching transactions on the %s engine', (engine) => {
  let t: TestJunction;
  let admin: { authorization: string };
  /** Reads every channel's bodies of `full`, only the metadata of `meta`, nothing of `hidden`. */
  let lab: { authorization: string };
  /** May see `full`'s transactions, not their bodies. */
  let clerk: { authorization: string };
  const channels: Record<string, string> = {};
  const ids: Record<string, string> = {};
  let minute = 0;

  const get = (path: string, headers = admin) => t.inject(path, { headers });
  async function list(query: string, headers = admin): Promise<Row[]> {
    const res = await get(`/transactions?filterLimit=100&${query}`, headers);
    expect(res.status, res.text).toBe(200);
    return res.body as Row[];
  }
  const listed = async (query: string, headers = admin) => (await list(query, headers)).map((r) => r._id);
  async function count(query: string, headers = admin): Promise<{ count: number; estimated?: boolean }> {
    const res = await get(`/transactions?filterRepresentation=bulkrerun&filterLimit=1&${query}`, headers);
    expect(res.status, res.text).toBe(200);
    const { count: n, estimated } = res.body as { count: number; estimated?: boolean };
    return estimated === undefined ? { count: n } : { count: n, estimated };
  }
  const problems = (res: TestResponse) => (res.body as { error: { code: string; details?: { path: string }[] } }).error;

  async function channel(name: string, acl: Record<string, unknown>): Promise<void> {
    const res = await t.inject('/channels', { method: 'POST', headers: admin, json: { name, urlPattern: `^/${name}$`, authType: 'public', txRerunAcl: ['lab'], ...acl, routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] } });
    expect(res.status, res.text).toBe(201);
    channels[name] = (res.body as { _id: string })._id;
  }

  /** A transaction written through the API, a minute after the one before (newest first is unambiguous). */
  async function write(name: string, channelName: string, body: string, status = 'Successful'): Promise<void> {
    minute++;
    const timestamp = new Date(Date.UTC(2026, 0, 15, 8, minute)).toISOString();
    const res = await t.inject('/transactions', {
      method: 'POST',
      headers: admin,
      json: { channelID: channels[channelName], status, request: { path: `/${channelName}`, method: 'POST', body, timestamp }, response: { status: status === 'Successful' ? 200 : 500, body: 'MSA|AA', timestamp } },
    });
    expect(res.status, res.text).toBe(201);
    ids[name] = (res.body as { _id: string })._id;
  }

  async function user(email: string, groups: string[]): Promise<{ authorization: string }> {
    const password = 'user-password-123';
    const res = await t.inject('/users', { method: 'POST', headers: admin, json: { email, firstname: 'A', surname: 'B', groups, password } });
    expect(res.status, res.text).toBe(201);
    return { authorization: basic(email, password) };
  }

  beforeAll(async () => {
    const storage = engine === 'postgres' ? { storage: { engine: 'postgres' as const, postgres: { url: (await (database ??= createTestDatabase())).url, poolSize: 4 } } } : {};
    t = await startJunction(storage);
    admin = { authorization: await unlockRoot(t) };
    await channel('full', { txViewFullAcl: ['lab'], txViewAcl: ['clerk'] });
    await channel('meta', { txViewAcl: ['lab'] });
    await channel('hidden', {});
    lab = await user('lab@example.org', ['lab']);
    clerk = await user('clerk@example.org', ['clerk']);
    await write('adt1', 'full', adt('CTRL-1', 'MRN-1004', 'SMH'));
    await write('oru1', 'full', oru('CTRL-2', 'MRN-1004', 'ACC-1001', 'hemoglobin normal'), 'Failed');
    await write('adt2', 'meta', adt('CTRL-3', 'MRN-1004', 'OTH'));
    await write('oru2', 'meta', oru('CTRL-4', 'MRN-2000', 'ACC-2002', 'hemoglobin low'));
    await write('hidden', 'hidden', adt('CTRL-5', 'MRN-1004', 'SMH', ' hemoglobin'));
    await write('fhir', 'full', JSON.stringify({ resourceType: 'Patient', identifier: [{ system: 'urn:mrn', value: 'MRN-1004' }], name: [{ family: 'Chalmers' }] }));
    await until('the indexer to index every transaction', async () => {
      const state = await t.junction.search.index.state();
      return state.finishedSeq >= (await t.junction.transactions.lastFinishedSeq()) && state.backfillDone && (await t.junction.search.index.keysOf([ids.fhir ?? ''])).size === 1 ? true : undefined;
    });
  });

  afterAll(async () => {
    await t?.destroy();
  });

  it('finds by each key, newest first, with the keys that matched on each row', async () => {
    expect(await listed('patientId=mrn-1004')).toEqual([ids.fhir, ids.hidden, ids.adt2, ids.oru1, ids.adt1]);
    expect(await listed('patientId=MRN-1004&authority=smh')).toEqual([ids.hidden, ids.oru1, ids.adt1]);
    expect(await listed('patientId=MRN-1004&authority=urn:mrn')).toEqual([ids.fhir]);
    expect(await listed('orderNumber=ACC-1001')).toEqual([ids.oru1]);
    expect(await listed('controlId=CTRL-3')).toEqual([ids.adt2]);
    expect(await listed('messageType=ORU')).toEqual([ids.oru2, ids.oru1]);
    expect(await listed('messageType=ADT%5EA01')).toEqual([ids.hidden, ids.adt2, ids.adt1]);
    const [first] = await list('patientId=MRN-1004&authority=SMH');
    expect(first?.match).toEqual([{ name: 'patientId', field: 'PID-3', value: 'MRN-1004', authority: 'SMH' }]);
    const [byOrder] = await list('q=ACC-1001');
    expect(byOrder?.match).toEqual([{ name: 'orderNumber', field: 'OBR-2', value: 'ACC-1001', authority: 'CPOE' }]);
    // Without a key filter rows carry no match.
    expect((await list('')).every((r) => r.match === undefined)).toBe(true);
  });

  it('q is a patient ID, an order number or a control ID; text is every word of a body', async () => {
    expect(await listed('q=ctrl-4')).toEqual([ids.oru2]);
    expect(await listed('q=SSN-MRN-2000')).toEqual([]);
    expect(await listed('q=SSN-MRN-1004')).toEqual([ids.hidden, ids.adt2, ids.adt1]);
    expect(await listed('text=hemoglobin')).toEqual([ids.hidden, ids.oru2, ids.oru1]);
    expect(await listed('text=Hemoglobin%20LOW')).toEqual([ids.oru2]);
    expect(await listed('text=chalmers')).toEqual([ids.fhir]);
    expect(await listed('text=nowhere')).toEqual([]);
  });

  it('combines with the other filters, in filters or as parameters, and pages', async () => {
    const failed = encodeURIComponent(JSON.stringify({ status: 'Failed' }));
    expect(await listed(`patientId=MRN-1004&filters=${failed}`)).toEqual([ids.oru1]);
    expect(await listed(`filters=${encodeURIComponent(JSON.stringify({ patientId: 'MRN-1004', channelID: channels.meta }))}`)).toEqual([ids.adt2]);
    expect(await listed(`text=hemoglobin&controlId=CTRL-2`)).toEqual([ids.oru1]);
    const range = encodeURIComponent(JSON.stringify({ 'request.timestamp': { $gte: '2026-01-15T08:03:00Z' } }));
    expect(await listed(`patientId=MRN-1004&filters=${range}`)).toEqual([ids.fhir, ids.hidden, ids.adt2]);
    const pages = [];
    for (let page = 0; page < 3; page++) pages.push(...(await (await get(`/transactions?patientId=MRN-1004&filterLimit=2&filterPage=${page}`)).body as Row[]).map((r) => r._id));
    expect(pages).toEqual([ids.fhir, ids.hidden, ids.adt2, ids.oru1, ids.adt1]);
    // A streamed page (no limit) carries the match too.
    const all = (await get('/transactions?patientId=MRN-1004&filterLimit=0')).body as Row[];
    expect(all.map((r) => r._id)).toEqual(pages);
    expect(all.every((r) => r.match?.[0]?.value === 'MRN-1004')).toBe(true);
  });

  it('counts, exports and previews a bulk re-run of the same matches as the list', async () => {
    expect(await count('patientId=MRN-1004')).toEqual({ count: 5 });
    expect(await count('text=hemoglobin')).toEqual({ count: 3 });
    const csv = await get('/transactions/export?format=csv&patientId=MRN-1004&authority=SMH');
    expect(csv.status, csv.text).toBe(200);
    expect(csv.text.trim().split('\n')).toHaveLength(1 + 3);
    const ndjson = await get(`/transactions/export?filters=${encodeURIComponent(JSON.stringify({ text: 'hemoglobin' }))}`);
    expect(ndjson.text.trim().split('\n').map((line) => (JSON.parse(line) as Row)._id)).toEqual([ids.hidden, ids.oru2, ids.oru1]);
    const preview = await t.inject('/bulkrerun/preview', { method: 'POST', headers: admin, json: { filters: { patientId: 'MRN-1004', authority: 'SMH' } } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ matching: 3 });
    const text = await t.inject('/bulkrerun/preview', { method: 'POST', headers: admin, json: { filters: JSON.stringify({ text: 'hemoglobin' }) } });
    expect(text.body).toMatchObject({ matching: 3 });
  });

  it("stops counting a text search at the cap and says the count is a floor; counts keys exactly", async () => {
    // The route's cap is 10,000; the engine's own countUpTo under a cap of 2 shows what a common word gets.
    expect(await countMatches(t.junction.transactions, { text: 'hemoglobin' }, 2)).toEqual({ count: 2, estimated: true });
    expect(await countMatches(t.junction.transactions, { text: 'hemoglobin' }, 3)).toEqual({ count: 3, estimated: false });
    expect(await countMatches(t.junction.transactions, { keys: [{ name: 'patientId', value: 'mrn-1004' }] }, 2)).toEqual({ count: 5, estimated: false });
  });

  it('finds only in channels the user may see, and by text only in bodies they may read', async () => {
    expect(await listed('patientId=MRN-1004', lab)).toEqual([ids.fhir, ids.adt2, ids.oru1, ids.adt1]);
    // The meta channel's ORU says "hemoglobin" in a body lab may not read: not found by text, found by its key.
    expect(await listed('text=hemoglobin', lab)).toEqual([ids.oru1]);
    expect(await listed('controlId=CTRL-4', lab)).toEqual([ids.oru2]);
    expect(await count('text=hemoglobin', lab)).toEqual({ count: 1 });
    // Naming the meta channel with text finds nothing rather than saying why.
    expect(await listed(`text=hemoglobin&filters=${encodeURIComponent(JSON.stringify({ channelID: channels.meta }))}`, lab)).toEqual([]);
    // The clerk reads no bodies at all: text finds nothing, and says nothing; keys still find what they may see.
    expect(await listed('text=hemoglobin', clerk)).toEqual([]);
    expect(await listed('text=chalmers', clerk)).toEqual([]);
    expect(await count('text=hemoglobin', clerk)).toEqual({ count: 0 });
    expect(await listed('patientId=MRN-1004', clerk)).toEqual([ids.fhir, ids.oru1, ids.adt1]);
    const exported = await get('/transactions/export?text=hemoglobin', clerk);
    expect(exported.status).toBe(200);
    expect(exported.text).toBe('');
    // The bulk re-run looks only into what the user may re-run and, for text, read.
    const preview = await t.inject('/bulkrerun/preview', { method: 'POST', headers: lab, json: { filters: { text: 'hemoglobin' } } });
    expect(preview.body).toMatchObject({ matching: 1 });
  });

  it('refuses bad parameters with 400s that name them', async () => {
    const cases: [string, string][] = [
      ['patientId=', 'querystring.patientId'],
      ['patientId=%ZZ%FF', 'querystring.patientId'],
      ['authority=SMH', 'querystring.authority'],
      [`orderNumber=${'x'.repeat(201)}`, 'querystring.orderNumber'],
      ['text=%20--%20', 'querystring.text'],
      [`text=${Array.from({ length: 17 }, (_, i) => `w${i}`).join('%20')}`, 'querystring.text'],
      ['patient=1', 'querystring'],
      [`filters=${encodeURIComponent(JSON.stringify({ controlId: 5 }))}`, 'querystring.filters.controlId'],
      [`filters=${encodeURIComponent(JSON.stringify({ text: 'a' }))}&text=b`, 'querystring.text'],
    ];
    for (const [query, path] of cases) {
      const res = await get(`/transactions?${query}`);
      expect(res.status, query).toBe(400);
      const error = problems(res);
      expect(JSON.stringify(error), query).toContain(path);
    }
    const bulk = await t.inject('/bulkrerun/preview', { method: 'POST', headers: admin, json: { filters: { authority: 'SMH' } } });
    expect(bulk.status).toBe(400);
    expect(problems(bulk).details?.map((d) => d.path)).toEqual(['body.filters.authority']);
    expect((await get('/transactions/export?messageType=')).status).toBe(400);
  });

  it('answers the index status to admins only, with the walk back done', async () => {
    const status = await get('/transactions/search-index');
    expect(status.status, status.text).toBe(200);
    expect(status.body).toMatchObject({ enabled: true, pending: 0, backfill: { done: true, percent: 100 } });
    expect((status.body as { transactions: number }).transactions).toBeGreaterThanOrEqual(6);
    expect((await get('/transactions/search-index', lab)).status).toBe(403);
    expect((await t.inject('/transactions/search-index')).status).toBe(401);
  });

  it('bounds a text search\'s count in time as well: out of time, the total is estimated, never below the page', async () => {
    // 800 transactions saying "plentiful": under the cap, so only the time bound can make the count an estimate.
    const records = Array.from({ length: 800 }, (_, i) => tx(new Date(Date.UTC(2026, 1, 1, 0, 0, i)).toISOString(), { channelID: channels.full ?? '' }));
    for (const record of records) await t.junction.transactions.insert(record);
    // The indexer has read their (bodiless) completions before the entries are written, so it cannot replace them.
    await until('the indexer to pass the new transactions', async () => ((await t.junction.search.index.state()).finishedSeq >= (await t.junction.transactions.lastFinishedSeq()) ? true : undefined));
    for (let at = 0; at < records.length; at += 400) {
      await t.junction.search.index.write(records.slice(at, at + 400).map((r) => ({ id: r._id, requestTimestamp: r.request.timestamp, channelID: r.channelID, keys: [], text: 'plentiful words' })));
    }
    expect(await countMatches(t.junction.transactions, { text: 'plentiful' })).toEqual({ count: 800, estimated: false });
    const bounded = await countMatches(t.junction.transactions, { text: 'plentiful' }, ESTIMATE_CAP, { withinMs: 0, atLeast: 20 });
    expect(bounded.estimated).toBe(true);
    expect(bounded.count).toBeGreaterThanOrEqual(20);
    expect(bounded.count).toBeLessThanOrEqual(ESTIMATE_CAP);
    // Counts by key stay exact whatever the time.
    expect(await countMatches(t.junction.transactions, { keys: [{ name: 'patientId', value: 'mrn-1004' }] }, ESTIMATE_CAP, { withinMs: 0 })).toEqual({ count: 5, estimated: false });
  });

  it('indexes a transaction again when PUT replaces its response; a channel that stores no bodies is still not indexed', async () => {
    await channel('bare', { txViewFullAcl: ['lab'], requestBody: false, responseBody: false });
    const post = async (channelName: string, request: string, response: string): Promise<string> => {
      const res = await t.inject('/transactions', {
        method: 'POST',
        headers: admin,
        json: { channelID: channels[channelName], status: 'Successful', request: { path: `/${channelName}`, method: 'POST', body: request, timestamp: '2026-01-20T09:00:00Z' }, response: { status: 200, body: response, timestamp: '2026-01-20T09:00:01Z' } },
      });
      expect(res.status, res.text).toBe(201);
      return (res.body as { _id: string })._id;
    };
    const put = async (id: string, response: string) => {
      const res = await t.inject(`/transactions/${id}`, { method: 'PUT', headers: admin, json: { response: { status: 200, body: response, timestamp: '2026-01-20T09:05:00Z' } } });
      expect(res.status, res.text).toBe(200);
    };
    const caughtUp = () => until('the indexer to read the feed to its end', async () => ((await t.junction.search.index.state()).finishedSeq >= (await t.junction.transactions.lastFinishedSeq()) ? true : undefined));

    const id = await post('full', adt('CTRL-PUT', 'MRN-7001', 'SMH'), oru('CTRL-OLD', 'MRN-7001', 'ACC-OLD-1', 'provisional'));
    const bare = await post('bare', adt('CTRL-BARE', 'MRN-7002', 'SMH'), 'bareword');
    await caughtUp();
    expect(await listed('orderNumber=ACC-OLD-1')).toEqual([id]);
    expect(await listed('text=provisional')).toEqual([id]);

    await put(id, oru('CTRL-NEW', 'MRN-7001', 'ACC-NEW-1', 'amended'));
    await put(bare, oru('CTRL-BARE2', 'MRN-7002', 'ACC-BARE-1', 'amended'));
    await caughtUp();
    expect(await listed('orderNumber=ACC-NEW-1')).toEqual([id]);
    expect(await listed('text=amended')).toEqual([id]);
    expect(await listed('controlId=CTRL-PUT')).toEqual([id]);
    // Only the replaced response had these.
    expect(await listed('orderNumber=ACC-OLD-1')).toEqual([]);
    expect(await listed('text=provisional')).toEqual([]);
    // The bodiless channel stored no new body, so nothing the index reads changed: not named again, nothing indexed.
    const entries = await t.junction.transactions.finishedAfter(0, 100_000);
    expect(entries.filter((e) => e.changed === true).map((e) => e.id)).toEqual([id]);
    expect((await t.junction.search.index.keysOf([bare])).size).toBe(0);
    expect(await listed('orderNumber=ACC-BARE-1')).toEqual([]);
  });
});

describe('searching while search is off', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  beforeAll(async () => {
    t = await startJunction({ search: { enabled: false } });
    admin = { authorization: await unlockRoot(t) };
  });
  afterAll(async () => {
    await t?.destroy();
  });

  it('refuses a key or text search with 409 SEARCH_DISABLED everywhere, and keeps the other filters working', async () => {
    for (const path of ['/transactions?patientId=1', '/transactions?q=1', '/transactions?filterRepresentation=bulkrerun&text=a', '/transactions/export?controlId=1']) {
      const res = await t.inject(path, { headers: admin });
      expect(res.status, path).toBe(409);
      expect((res.body as { error: { code: string } }).error.code).toBe('SEARCH_DISABLED');
    }
    const bulk = await t.inject('/bulkrerun/preview', { method: 'POST', headers: admin, json: { filters: { orderNumber: 'A' } } });
    expect(bulk.status).toBe(409);
    expect((await t.inject('/transactions?filters=%7B%22status%22%3A%22Failed%22%7D', { headers: admin })).status).toBe(200);
    expect((await t.inject('/transactions/search-index', { headers: admin })).body).toMatchObject({ enabled: false });
  });
});
