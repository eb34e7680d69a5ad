/**
 * Why a transaction did not succeed, decided when it completes and stored with it (issue 36), end to end on both
 * storage engines: an upstream's 500 with its body, a route that refuses the connection, an HL7 lab answering `AE`
 * (node-hl7-server) and `AR` with its words (a raw peer), and a transaction written through the API. The list answers
 * each with its reason and its channel's and client's names, a non-admin reads the client's name on the transactions
 * it may see, and the CSV export carries the names and the reason after the columns it always had.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { readHeader } from '../../service/domain/codecs/hl7.js';
import type { TransactionView } from '../../service/contracts/transactions.js';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { hl7Upstream, listeningChannel, streamUpstream, transactionOf } from '../messages/hl7-peers.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';
import { adt, freePort, hl7Send, msaOf } from '../transports/fixtures.js';

const OLD_COLUMNS = '_id,timestamp,status,channelID,clientID,clientIP,method,path,querystring,responseStatus,durationMs';

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describe.each(['embedded', 'postgres'] as const)('transaction reasons on the %s engine', (engine) => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };
  const closers: (() => Promise<void>)[] = [];
  const ids: Record<string, string> = {};
  const channels: Record<string, string> = {};

  async function channel(name: string, fields: Record<string, unknown>): Promise<string> {
    const res = await t.inject('/channels', { method: 'POST', headers: admin, json: { name, authType: 'public', txViewAcl: ['nurses'], ...fields } });
    expect(res.status, res.text).toBe(201);
    channels[name] = (res.body as { _id: string })._id;
    return channels[name];
  }

  async function send(name: string, path: string, headers: Record<string, string> = {}): Promise<void> {
    const res = await fetch(`${t.httpUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"patient":"123"}' });
    await res.arrayBuffer();
    ids[name] = (await completedTransaction(t, res.headers.get('x-openhim-transactionid')))._id;
  }

  const list = async (headers = admin): Promise<TransactionView[]> => {
    const res = await t.inject('/transactions?filterLimit=100', { headers });
    expect(res.status, res.text).toBe(200);
    return res.body as TransactionView[];
  };
  const listed = async (name: string, headers = admin): Promise<TransactionView> => {
    const found = (await list(headers)).find((tx) => tx._id === ids[name]);
    if (found === undefined) throw new Error(`${name} is not listed`);
    return found;
  };

  beforeAll(async () => {
    const storage = engine === 'postgres' ? { storage: { engine: 'postgres' as const, postgres: { url: (await (database ??= createTestDatabase())).url, poolSize: 4 } } } : {};
    t = await startJunction(storage);
    admin = { authorization: await unlockRoot(t) };
    const created = await t.inject('/users', { method: 'POST', headers: admin, json: { email: 'nina@clinic.example', firstname: 'Nina', surname: 'N', groups: ['nurses'], password: 'user-password-123' } });
    expect(created.status, created.text).toBe(201);
    nurse = { authorization: basic('nina@clinic.example', 'user-password-123') };
    const client = await t.inject('/clients', { method: 'POST', headers: admin, json: { clientID: 'emr', name: 'Clinic EMR', roles: ['emr-systems'], password: 'emr-client-pass-1' } });
    expect(client.status, client.text).toBe(201);

    const failing: Upstream = await httpUpstream((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"database is locked","password":"hunter2"}');
    });
    closers.push(() => failing.close());
    const closedPort = await freePort();
    await channel('Lab results', { urlPattern: '^/lab$', authType: 'private', allow: ['emr-systems'], routes: [{ name: 'lab', host: '127.0.0.1', port: failing.port, primary: true }] });
    await channel('Pharmacy', { urlPattern: '^/pharmacy$', routes: [{ name: 'pharmacy', host: '127.0.0.1', port: closedPort, primary: true }] });
    await send('http500', '/lab', { authorization: basic('emr', 'emr-client-pass-1') });
    await send('refused', '/pharmacy');

    // A long error answer streamed in chunks: its start is kept for the reason while the whole of it goes on.
    const streaming: Upstream = await httpUpstream((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.write(`maintenance window until 14:00; ${'x'.repeat(64 * 1024)}`);
      setTimeout(() => res.end('y'.repeat(64 * 1024)), 20);
    });
    closers.push(() => streaming.close());
    await channel('Radiology', { urlPattern: '^/radiology$', routes: [{ name: 'pacs', host: '127.0.0.1', port: streaming.port, primary: true }] });
    const streamed = await fetch(`${t.httpUrl}/radiology`);
    expect(streamed.status).toBe(502);
    expect((await streamed.text()).length).toBe('maintenance window until 14:00; '.length + 2 * 64 * 1024);
    ids.streamed = (await completedTransaction(t, streamed.headers.get('x-openhim-transactionid')))._id;

    const rejecting: Hl7Upstream = await hl7Upstream(() => 'AE');
    closers.push(() => rejecting.close());
    const lab = await listeningChannel(t, admin, rejecting.port, 'HL7 lab', { txViewAcl: ['nurses'] });
    const [ae] = await hl7Send(lab.tcpPort, [adt('REASON-AE')]);
    expect(msaOf(ae ?? '').code).toBe('AE');
    ids.ae = (await transactionOf(t, 'REASON-AE'))._id;

    // A lab system that rejects with its own words in MSA-3, as many do.
    const worded = await streamUpstream((message) => {
      const id = readHeader(message)?.controlId ?? '';
      return `MSH|^~\\&|LIS|LAB|JUNCTION|CLINIC|20260101120000||ACK^A01^ACK|R-${id}|P|2.5\rMSA|AR|${id}|Unknown patient 12345\rERR|||204^Unknown key identifier^HL70357|E\r`;
    });
    closers.push(() => worded.close());
    const words = await listeningChannel(t, admin, worded.port, 'HL7 archive', { routes: [{ name: 'archive', type: 'tcp', host: '127.0.0.1', port: worded.port, primary: true }], txViewAcl: ['nurses'] });
    const [ar] = await hl7Send(words.tcpPort, [adt('REASON-AR')]);
    expect(msaOf(ar ?? '').code).toBe('AR');
    ids.ar = (await transactionOf(t, 'REASON-AR'))._id;

    const written = await t.inject('/transactions', {
      method: 'POST',
      headers: admin,
      json: {
        channelID: channels['Lab results'],
        status: 'Failed',
        request: { method: 'POST', path: '/lab', timestamp: new Date().toISOString() },
        response: { status: 503, headers: { 'content-type': 'text/plain' }, body: 'lab is down for maintenance until 14:00', timestamp: new Date().toISOString() },
      },
    });
    expect(written.status, written.text).toBe(201);
    ids.written = (written.body as { _id: string })._id;
  });

  afterAll(async () => {
    await t?.destroy();
    for (const close of closers) await close();
  });

  it("stores an upstream 500's status and the start of its body, credentials masked", async () => {
    const stored = await t.junction.transactions.get(ids.http500 ?? '');
    expect(stored?.reason).toBe('500: {"error":"database is locked","password":****}');
    expect(await listed('http500')).toMatchObject({ status: 'Failed', reason: '500: {"error":"database is locked","password":****}', channelName: 'Lab results', clientName: 'Clinic EMR' });
  });

  it("keeps the start of a long streamed error answer, and the client still gets all of it", async () => {
    const stored = await t.junction.transactions.get(ids.streamed ?? '');
    expect(stored).toMatchObject({ status: 'Failed', response: { status: 502 } });
    expect(stored?.reason).toMatch(/^502: maintenance window until 14:00; x{100,}…$/);
    expect(stored?.reason?.length).toBe(200);
  });

  it('stores the route error when the upstream refuses the connection', async () => {
    const stored = await t.junction.transactions.get(ids.refused ?? '');
    expect(stored?.reason).toMatch(/could not be reached: connect ECONNREFUSED/);
    expect(stored?.reason).toBe(stored?.error?.message);
    expect((await listed('refused')).reason).toBe(stored?.reason);
  });

  it("stores an HL7 lab's AE and AR with its words, the status rules unchanged", async () => {
    const ae = await t.junction.transactions.get(ids.ae ?? '');
    // AE counts as a 4xx (docs/integrator/transaction-ports.md, "ACK rules"): Completed, as SPEC.md's table says for a primary that is not 2xx nor 5xx.
    expect(ae).toMatchObject({ status: 'Completed', response: { status: 400 } });
    expect(ae?.reason).toMatch(/^AE\b/);
    const ar = await t.junction.transactions.get(ids.ar ?? '');
    expect(ar).toMatchObject({ status: 'Failed', response: { status: 500 }, reason: 'AR: Unknown patient 12345' });
    expect(ar?.error).toBeUndefined();
    expect((await listed('ar')).reason).toBe('AR: Unknown patient 12345');
  });

  it('decides the reason of a transaction written through the API, and again when a write changes it', async () => {
    expect(await listed('written')).toMatchObject({ reason: '503: lab is down for maintenance until 14:00' });
    // A fetched document sent back as it came, without its bodies, keeps the words read from the body before.
    const fetched = await t.inject(`/transactions/${ids.written ?? ''}?filterRepresentation=simple`, { headers: admin });
    const again = await t.inject(`/transactions/${ids.written ?? ''}`, { method: 'PUT', headers: admin, json: { ...(fetched.body as object), status: 'Failed' } });
    expect(again.status, again.text).toBe(200);
    expect((again.body as TransactionView).reason).toBe('503: lab is down for maintenance until 14:00');
    const put = await t.inject(`/transactions/${ids.written ?? ''}`, { method: 'PUT', headers: admin, json: { status: 'Successful', response: { status: 200, body: 'ok' } } });
    expect(put.status, put.text).toBe(200);
    expect((put.body as TransactionView).reason).toBeUndefined();
    expect((await t.junction.transactions.get(ids.written ?? ''))?.reason).toBeUndefined();
  });

  it("lets a non-admin read the names of the clients on the transactions it may see, and no others'", async () => {
    expect((await t.inject('/clients', { headers: nurse })).status).toBe(403);
    const seen = await listed('http500', nurse);
    expect(seen).toMatchObject({ clientName: 'Clinic EMR', channelName: 'Lab results' });
    expect(seen.reason).toMatch(/^500: /);
    const detail = await t.inject(`/transactions/${ids.http500 ?? ''}`, { headers: nurse });
    expect(detail.body).toMatchObject({ clientName: 'Clinic EMR', channelName: 'Lab results' });
    // A channel the nurse may not view: its transactions, and so its names, are not answered.
    const hidden = await t.inject('/channels', { method: 'POST', headers: admin, json: { name: 'Hidden', urlPattern: '^/hidden$', authType: 'public', routes: [{ name: 'h', host: '127.0.0.1', port: 9, primary: true }] } });
    expect(hidden.status, hidden.text).toBe(201);
    await send('hidden', '/hidden');
    expect((await listed('hidden')).channelName).toBe('Hidden');
    expect(JSON.stringify(await list(nurse))).not.toContain('Hidden');
  });

  it('exports the names and the reason in the CSV after the columns it always had', async () => {
    const res = await t.inject('/transactions/export?format=csv', { headers: admin });
    expect(res.status).toBe(200);
    const [header = '', ...rows] = res.text.split('\r\n');
    expect(header).toBe(`${OLD_COLUMNS},channelName,clientName,reason`);
    const row = rows.find((r) => r.startsWith(`${ids.http500 ?? ''},`)) ?? '';
    expect(row).toMatch(/,Lab results,Clinic EMR,"500: \{""error"":""database is locked"",""password"":\*\*\*\*\}"$/);
    expect(rows.find((r) => r.startsWith(`${ids.ar ?? ''},`))).toMatch(/,HL7 archive,,AR: Unknown patient 12345$/);
    // The nurse's export names the client too.
    const nurseCsv = await t.inject('/transactions/export?format=csv', { headers: nurse });
    expect(nurseCsv.text.split('\r\n').find((r) => r.startsWith(`${ids.http500 ?? ''},`))).toContain(',Lab results,Clinic EMR,');
  });
});
