/**
 * The search indexer (issue 37) through a real service on both engines: transactions stored while search was off are
 * indexed by the walk back after it is turned on, resuming where an earlier walk stopped (its state is stored with
 * the index); HL7 sent over MLLP by Debian's `mllp_send` and FHIR over HTTP are then found by the log's own
 * `page({keys})` and `page({text})`; a channel that stores no bodies gives nothing to index; retention takes the
 * entries with the transactions and a channel's words with its aged-out bodies. Nothing indexed appears in the logs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { pino } from 'pino';
import type { KeyCondition } from '../../service/domain/clinical/clinical-key.js';
import { SearchIndexer } from '../../service/search/indexer.js';
import { indexedEntry } from '../../service/search/indexed-entry.js';
import { applyRetention } from '../../service/schedulers/retention.js';
import { RecentBodies } from '../../service/storage/bodies/recent-bodies.js';
import { NEW_ROOT_PASSWORD, ROOT_EMAIL, basic, completedTransaction, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { hl7Upstream, listeningChannel } from '../messages/hl7-peers.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';

const ADT_A01 = [
  'MSH|^~\\&|ADT|SMH|LIS|SMHLAB|20260115083000||ADT^A01^ADT_A01|SRCH-ADT-1|P|2.5.1',
  'PID|1||MRN-1004^^^SMH^MR~900-11-2222^^^SSA^SS||Rivera^Ana||19800412|F|||||||||ACCT-778^^^SMH^AN',
  'PV1|1|I|W2^201^A||||||||||||||||VISIT-5566^^^SMH^VN',
].join('\r');
const ORU_R01 = [
  'MSH|^~\\&|LIS|SMHLAB|EMR|SMH|20260115120000||ORU^R01^ORU_R01|SRCH-ORU-1|P|2.5.1',
  'PID|1||MRN-1004^^^SMH^MR||Rivera^Ana',
  'OBR|1|PLC-9001^CPOE|ACC-1001^LIS|CBC^Complete blood count^L',
  'OBX|1|NM|718-7^Hemoglobin^LN||13.2|g/dL|12-16|N|||F',
  'OBR|2|PLC-9002^CPOE|ACC-1002^LIS|BMP^Basic metabolic panel^L',
  'OBX|1|NM|2951-2^Sodium^LN||140|mmol/L|135-145|N|||F',
].join('\r');

function patientBundle(mrn: string, surname: string): string {
  return JSON.stringify({
    resourceType: 'Bundle',
    type: 'transaction',
    entry: [
      { fullUrl: 'urn:uuid:1', resource: { resourceType: 'Patient', identifier: [{ system: 'urn:oid:1.2.36.1', value: mrn }], name: [{ family: surname }] }, request: { method: 'POST', url: 'Patient' } },
      { resource: { resourceType: 'ServiceRequest', identifier: [{ system: 'http://lab.example/placer', value: `ORD-${mrn}` }], subject: { identifier: { system: 'urn:oid:1.2.36.1', value: mrn } } }, request: { method: 'POST', url: 'ServiceRequest' } },
    ],
  });
}

/** Sends messages with Debian's mllp_send (python3-hl7), which reads a file of messages each ended by 0x1C. */
async function mllpSend(port: number, messages: string[]): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'junction-search-')), 'messages.hl7');
  await writeFile(file, messages.map((m) => `${m}\r\x1c`).join(''), 'latin1');
  return new Promise((resolve, reject) => {
    execFile('mllp_send', ['-p', String(port), '-f', file, '127.0.0.1'], { encoding: 'latin1', timeout: 20_000 }, (err, stdout, stderr) => {
      if (err !== null) reject(new Error(`mllp_send failed: ${err.message} ${stderr}`));
      else resolve(stdout);
    });
  });
}

const silent = pino({ level: 'silent' });

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

describe.each(['embedded', 'postgres'] as const)('the search indexer on the %s engine', (engine) => {
  let t: TestJunction;
  let admin: { authorization: string };
  let storage: object;
  let dataDir: string;
  let fhir: Upstream;
  let lab: Hl7Upstream;
  const closers: (() => Promise<void>)[] = [];
  const early: string[] = [];
  let searchOff: TestJunction | undefined;

  const found = async (keys: KeyCondition[], text?: string): Promise<string[]> =>
    (await t.junction.transactions.page({ keys, ...(text === undefined ? {} : { text }) }, { limit: 50 })).map((r) => r._id);

  async function post(tj: TestJunction, path: string, body: string): Promise<string> {
    const res = await fetch(`${tj.httpUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body });
    await res.arrayBuffer();
    return (await completedTransaction(tj, res.headers.get('x-openhim-transactionid')))._id;
  }

  /** Waits until the indexer has read the finished feed through its end (so what is not indexed never will be). */
  const caughtUp = () => until('the indexer to catch up', async () => ((await t.junction.search.index.state()).finishedSeq >= (await t.junction.transactions.lastFinishedSeq()) ? true : undefined));

  beforeAll(async () => {
    storage = engine === 'postgres' ? { storage: { engine: 'postgres' as const, postgres: { url: (await (database ??= createTestDatabase())).url, poolSize: 4 } } } : {};
    dataDir = await tempDir();
    fhir = await httpUpstream((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/fhir+json' });
        res.end(JSON.stringify({ resourceType: 'OperationOutcome', id: 'ok', issue: [{ severity: 'information', code: 'informational' }] }));
      });
    });
    lab = await hl7Upstream();
    closers.push(() => fhir.close(), () => lab.close());

    // Search off: twelve FHIR transactions stored and not indexed.
    searchOff = await startJunction({ ...storage, search: { enabled: false } }, { dataDir });
    expect(searchOff.junction.search.indexer).toBeUndefined();
    const offAdmin = { authorization: await unlockRoot(searchOff) };
    const created = await searchOff.inject('/channels', { method: 'POST', headers: offAdmin, json: { name: 'FHIR', urlPattern: '^/fhir$', authType: 'public', routes: [{ name: 'fhir server', host: '127.0.0.1', port: fhir.port, primary: true }] } });
    expect(created.status, created.text).toBe(201);
    for (let i = 0; i < 12; i++) early.push(await post(searchOff, '/fhir', patientBundle(`EARLY-${i}`, `Early${i}`)));
  });

  afterAll(async () => {
    await searchOff?.stop();
    await t?.destroy();
    for (const close of closers) await close();
  });

  it('indexes nothing while search is off; a store failure moves nothing; a walk back that stops part way resumes from its stored state', async () => {
    const off = searchOff as TestJunction;
    expect(await off.junction.search.index.state()).toMatchObject({ finishedSeq: 0, backfillBefore: null, backfillDone: false });
    // A disk that fails once: the run ends without a throw, says so in the log, and moves nothing forward.
    let failures = 1;
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const flaky = {
      readText: (...args: Parameters<TestJunction['junction']['bodies']['readText']>) =>
        failures-- > 0 ? Promise.reject(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' })) : off.junction.bodies.readText(...args),
    };
    const failing = new SearchIndexer({ log: off.junction.transactions, bodies: flaky, index: off.junction.search.index, maxTextBytes: 65_536, logger, batchSize: 5, backfillSliceMs: 0 });
    await failing.run();
    expect(failing.health().lastError).toContain('EIO');
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('tried again'))).toBe(true);
    // The failure came as the walk's start was read (the newest transaction is indexed with the first state): nothing written.
    expect(await off.junction.search.index.state()).toEqual({ finishedSeq: 0, backfillBefore: null, backfillDone: false, backfillTotal: 0, backfillCovered: 0 });
    // A body removed before it was indexed (retention) is skipped, not an error.
    const gone = { readText: () => Promise.reject(Object.assign(new Error('ENOENT: no stored body'), { code: 'ENOENT' })) };
    const record = await off.junction.transactions.get(early[0] ?? '');
    expect(await indexedEntry({ bodies: gone, maxTextBytes: 65_536 }, record as NonNullable<typeof record>)).toBeNull();

    // One slice of one batch of five, as a run cut short by a stop would leave it, through the engine's real stores.
    const partial = new SearchIndexer({ log: off.junction.transactions, bodies: off.junction.bodies, index: off.junction.search.index, maxTextBytes: 65_536, logger: silent, batchSize: 5, backfillSliceMs: 0 });
    await partial.run();
    expect(partial.health().lastError).toBeUndefined();
    const state = await off.junction.search.index.state();
    // The newest (early[11]) with the state when the walk began, then one batch below it: the four the page of five
    // read besides the newest itself, which it drops.
    expect(state).toMatchObject({ backfillDone: false, backfillTotal: 12, backfillCovered: 5, backfillBefore: early[7] });
    await off.stop();
    searchOff = undefined;

    // Turned on: the service's own indexer takes the walk up where it stood and covers the other seven.
    t = await startJunction({ ...storage }, { dataDir });
    admin = { authorization: basic(ROOT_EMAIL, NEW_ROOT_PASSWORD) };
    const done = await until('the walk back to finish', async () => {
      const s = await t.junction.search.index.state();
      return s.backfillDone ? s : undefined;
    });
    expect(done).toMatchObject({ backfillTotal: 12, backfillCovered: 12 });
    for (let i = 0; i < 12; i++) expect(await found([{ name: 'patientId', value: `early-${i}` }])).toEqual([early[i]]);
    expect(await found([{ name: 'orderNumber', value: 'ORD-EARLY-3', authority: 'http://lab.example/placer' }])).toEqual([early[3]]);
  });

  it('finds HL7 sent over MLLP by mllp_send by every key, repetitions and OBR groups included', async () => {
    const channel = await listeningChannel(t, admin, lab.port, 'HL7 lab');
    const acks = await mllpSend(channel.tcpPort ?? 0, [ADT_A01, ORU_R01]);
    expect(acks).toContain('MSA|AA|SRCH-ORU-1');
    const [adt] = await until('the ADT to be indexed', async () => {
      const ids = await found([{ name: 'controlId', value: 'SRCH-ADT-1' }]);
      return ids.length > 0 ? ids : undefined;
    });
    const [oru] = await until('the ORU to be indexed', async () => {
      const ids = await found([{ name: 'controlId', value: 'srch-oru-1' }]);
      return ids.length > 0 ? ids : undefined;
    });
    // Newest first: the ORU was sent after the ADT.
    expect(await found([{ name: 'patientId', value: 'MRN-1004' }])).toEqual([oru, adt]);
    expect(await found([{ name: 'patientId', value: 'MRN-1004', authority: 'smh' }])).toEqual([oru, adt]);
    expect(await found([{ name: 'patientId', value: 'MRN-1004', authority: 'SSA' }])).toEqual([]);
    expect(await found([{ name: 'patientId', value: '900-11-2222', authority: 'SSA' }])).toEqual([adt]);
    expect(await found([{ name: 'orderNumber', value: 'ACC-1002' }])).toEqual([oru]);
    expect(await found([{ name: 'any', value: 'PLC-9001' }])).toEqual([oru]);
    expect(await found([{ name: 'messageType', value: 'ADT' }])).toEqual([adt]);
    expect(await found([{ name: 'messageType', value: 'ORU^R01' }])).toEqual([oru]);
    // The ACK the lab answered is indexed as the response.
    const keys = (await t.junction.search.index.keysOf([oru ?? ''])).get(oru ?? '') ?? [];
    expect(keys).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'controlId', value: 'SRCH-ORU-1', field: 'MSH-10', part: 'request' })]));
    expect(keys.some((k) => k.part === 'response' && k.name === 'messageType' && k.value === 'ACK')).toBe(true);
    expect(await found([], 'hemoglobin')).toEqual([oru]);
    // The indexer took the four bodies the pipeline had just stored from memory, not back from the store.
    expect(t.junction.bodies).toBeInstanceOf(RecentBodies);
    expect((t.junction.bodies as RecentBodies).counts.taken).toBeGreaterThanOrEqual(4);
  });

  it('finds FHIR sent over HTTP by patient identifier, order number and words', async () => {
    const id = await post(t, '/fhir', patientBundle('MRN-77', 'Chalmers'));
    await until('the bundle to be indexed', async () => ((await found([{ name: 'patientId', value: 'MRN-77' }])).length > 0 ? true : undefined));
    expect(await found([{ name: 'patientId', value: 'mrn-77', authority: 'urn:oid:1.2.36.1' }])).toEqual([id]);
    expect(await found([{ name: 'orderNumber', value: 'ORD-MRN-77' }])).toEqual([id]);
    expect(await found([], 'chalmers')).toEqual([id]);
  });

  it('indexes nothing of a channel that stores no bodies', async () => {
    const created = await t.inject('/channels', { method: 'POST', headers: admin, json: { name: 'FHIR, no bodies', urlPattern: '^/quiet$', authType: 'public', requestBody: false, responseBody: false, routes: [{ name: 'fhir server', host: '127.0.0.1', port: fhir.port, primary: true }] } });
    expect(created.status, created.text).toBe(201);
    const id = await post(t, '/quiet', patientBundle('MRN-QUIET', 'Quiet'));
    await caughtUp();
    expect(await found([{ name: 'patientId', value: 'MRN-QUIET' }])).toEqual([]);
    expect((await t.junction.search.index.keysOf([id])).size).toBe(0);
    expect(await found([], 'quiet')).toEqual([]);
  });

  it('logs nothing indexed: no identifier, no word of a body', () => {
    const logged = JSON.stringify(t.logs);
    for (const secret of ['MRN-1004', 'Rivera', 'Chalmers', 'MRN-77', 'ACC-1002', 'EARLY-3']) expect(logged).not.toContain(secret);
    expect(t.logs.some((l) => l.component === 'search')).toBe(true);
  });

  it("drops a channel's words with its aged-out bodies (keys stay), and every entry with the transactions", async () => {
    const [fhirChannel] = await t.junction.store.channels.find({ name: 'FHIR' });
    const changed = await t.inject(`/channels/${fhirChannel?._id ?? ''}`, { method: 'PUT', headers: admin, json: { maxBodyAgeDays: 1 } });
    expect(changed.status, changed.text).toBe(200);
    const later = new Date(Date.now() + 3 * 24 * 3_600_000);
    const deps = { transactions: t.junction.transactions, bodies: t.junction.bodies, channels: t.junction.store.channels, searchIndex: t.junction.search.index, logger: silent, now: () => later };
    await applyRetention({ ...deps, maxAgeDays: 0 });
    expect(await found([], 'chalmers')).toEqual([]);
    expect(await found([{ name: 'patientId', value: 'MRN-77' }])).toHaveLength(1);
    await applyRetention({ ...deps, maxAgeDays: 1 });
    expect(await found([{ name: 'patientId', value: 'MRN-77' }])).toEqual([]);
    expect(await found([{ name: 'patientId', value: 'MRN-1004' }])).toEqual([]);
    expect((await t.junction.search.index.stats()).transactions).toBe(0);
  });
});

describe('the search indexer when the finished feed was trimmed past it', () => {
  let t: TestJunction;
  let upstream: Upstream;
  afterAll(async () => {
    await t?.destroy();
    await upstream?.close();
  });

  it('walks back over every transaction again, so one whose feed entry was dropped unread is still indexed', async () => {
    upstream = await httpUpstream((req, res) => {
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    // Search off: no job of the service's own runs beside the indexers this test drives.
    t = await startJunction({ search: { enabled: false } });
    const admin = { authorization: await unlockRoot(t) };
    const created = await t.inject('/channels', { method: 'POST', headers: admin, json: { name: 'FHIR', urlPattern: '^/fhir$', authType: 'public', routes: [{ name: 'fhir', host: '127.0.0.1', port: upstream.port, primary: true }] } });
    expect(created.status, created.text).toBe(201);
    const send = async (mrn: string): Promise<string> => {
      const res = await fetch(`${t.httpUrl}/fhir`, { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: patientBundle(mrn, 'Trim') });
      await res.arrayBuffer();
      const id = (await completedTransaction(t, res.headers.get('x-openhim-transactionid')))._id;
      // Each finishes in a later millisecond than the one before, so the feed can be cut between them.
      const at = Date.now();
      await until('the clock to move', () => (Date.now() > at + 2 ? true : undefined));
      return id;
    };
    const stores = { log: t.junction.transactions, bodies: t.junction.bodies, index: t.junction.search.index, maxTextBytes: 65_536, logger: silent };
    await send('TRIM-0');
    await new SearchIndexer(stores).run();
    expect(await t.junction.search.index.state()).toMatchObject({ backfillDone: true, backfillCovered: 1 });
    const seen = (await t.junction.search.index.state()).finishedSeq;
    const dropped = await send('TRIM-1');
    await send('TRIM-2');
    const feed = await t.junction.transactions.finishedAfter(seen, 10);
    expect(feed.map((f) => f.id)[0]).toBe(dropped);
    // The feed's trim (two days) took the entry of TRIM-1 before the indexer read it.
    await t.junction.transactions.dropFinishedBefore((feed[1] as { at: Date }).at);
    const later = (feed[1] as { at: Date }).at.getTime() + 2 * 24 * 3_600_000 - 3_600_000;
    await new SearchIndexer({ ...stores, now: () => later }).run();
    const state = await t.junction.search.index.state();
    expect(state).toMatchObject({ backfillDone: true, backfillTotal: 3, backfillCovered: 3 });
    for (const mrn of ['TRIM-0', 'TRIM-1', 'TRIM-2']) expect(await t.junction.transactions.page({ keys: [{ name: 'patientId', value: mrn }] }, { limit: 5 })).toHaveLength(1);
  });
});
