/**
 * The search index contract (issue 37): what a caller of `SearchIndex` and of the log's `page`, `count`, `countUpTo`
 * and `stream` with `keys` and `text` can observe, which every engine must show. Entries are written as the indexer
 * writes them (`write(entries, state)`), for transactions already in the log.
 *
 * Usage: `describeSearchIndexContract('SQLite', openFixture)` from a `*.test.ts` file (search-index-engines.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClinicalKey, KeyCondition } from '../../service/domain/clinical/clinical-key.js';
import type { IndexedTransaction, SearchIndex } from '../../service/storage/search-index.js';
import { StoreError } from '../../service/storage/store.js';
import type { TransactionFilter, TransactionLog, TransactionRecord } from '../../service/storage/transactions.js';
import { tx } from './transaction-log-contract.js';

/** One log and the search index kept beside it, over the same data. */
export interface SearchFixture {
  /** NOT opened yet: the suite opens the log (which opens its index). */
  log: TransactionLog;
  index: SearchIndex;
  /** Where the data lives; pass it back to the factory to reopen the same data. */
  location: string;
  cleanup: () => Promise<void>;
}

export type OpenSearchFixture = (location?: string) => Promise<SearchFixture>;

const DAY1 = '2024-03-01';
const DAY2 = '2024-03-02';
const DAY3 = '2024-03-03';

/** A key as extraction writes it. */
function key(name: ClinicalKey['name'], value: string, extra: Partial<ClinicalKey> = {}): ClinicalKey {
  const field = { patientId: 'PID-3', orderNumber: 'ORC-2', controlId: 'MSH-10', messageType: 'MSH-9' }[name as string] ?? 'PV1-19';
  return { name, value, field, part: 'request', ...extra };
}

/** The entry of a stored transaction. */
function entry(record: TransactionRecord, keys: ClinicalKey[], text = ''): IndexedTransaction {
  return { id: record._id, requestTimestamp: record.request.timestamp, channelID: record.channelID, keys, text };
}

const ids = (records: readonly TransactionRecord[]): string[] => records.map((r) => r._id);

/** Runs the search index contract against one engine. */
export function describeSearchIndexContract(label: string, openFixture: OpenSearchFixture): void {
  describe(`search index contract: ${label}`, () => {
    const fixtures: SearchFixture[] = [];

    async function open(location?: string): Promise<SearchFixture> {
      const created = await openFixture(location);
      fixtures.push(created);
      await created.log.open();
      return created;
    }

    /** Stores the records, then indexes them in one write. */
    async function seeded(records: { record: TransactionRecord; keys: ClinicalKey[]; text?: string }[]): Promise<SearchFixture> {
      const f = await open();
      for (const { record } of records) await f.log.insert(record);
      await f.index.write(records.map(({ record, keys, text }) => entry(record, keys, text)));
      return f;
    }

    const page = async (log: TransactionLog, filter: TransactionFilter, limit = 50, skip = 0): Promise<string[]> => ids(await log.page(filter, { limit, skip }));
    const streamed = async (log: TransactionLog, filter: TransactionFilter): Promise<string[]> => {
      const out: string[] = [];
      for await (const record of log.stream(filter)) out.push(record._id);
      return out;
    };
    const byKey = (name: KeyCondition['name'], value: string, authority?: string): TransactionFilter => ({ keys: [{ name, value, ...(authority === undefined ? {} : { authority }) }] });

    afterEach(async () => {
      const done = fixtures.splice(0);
      for (const created of done) await created.log.close();
      for (const created of done) await created.cleanup();
    });

    it('finds a transaction by each key type, whatever the case and spaces, and a message type by its code or code^event', async () => {
      const adt = tx(`${DAY1}T10:00:00.000Z`);
      const orm = tx(`${DAY1}T11:00:00.000Z`);
      const f = await seeded([
        { record: adt, keys: [key('patientId', 'MRN-00042', { authority: 'HOSP' }), key('controlId', 'MSG0001'), key('messageType', 'ADT'), key('messageType', 'ADT^A01'), key('account', 'ACC-9')] },
        { record: orm, keys: [key('patientId', 'mrn-00077'), key('orderNumber', 'ORD-5', { field: 'ORC-2' }), key('controlId', 'MSG0002'), key('messageType', 'ORM'), key('messageType', 'ORM^O01')] },
      ]);
      expect(await page(f.log, byKey('patientId', 'MRN-00042'))).toEqual([adt._id]);
      expect(await page(f.log, byKey('patientId', '  mrn-00042 '))).toEqual([adt._id]);
      expect(await page(f.log, byKey('orderNumber', 'ord-5'))).toEqual([orm._id]);
      expect(await page(f.log, byKey('controlId', 'MSG0002'))).toEqual([orm._id]);
      expect(await page(f.log, byKey('messageType', 'adt'))).toEqual([adt._id]);
      expect(await page(f.log, byKey('messageType', 'ADT^A01'))).toEqual([adt._id]);
      expect(await page(f.log, byKey('messageType', 'ADT^A08'))).toEqual([]);
      expect(await page(f.log, byKey('patientId', 'MRN-0004'))).toEqual([]);
      // A key of another name does not match: an order number is not a patient ID.
      expect(await page(f.log, byKey('patientId', 'ORD-5'))).toEqual([]);
      expect(await f.log.count(byKey('messageType', 'ORM^O01'))).toBe(1);
    });

    it('tells apart values and authorities that differ only in spaces, punctuation, accents or letters past ASCII', async () => {
      const values = ['MRN 12', 'MRN-12', 'mrn12', 'Zz9', 'zz9^x', 'Ähm 7', 'ahm 7', '患者1', 'a zz b'];
      const records = values.map((_v, i) => tx(`${DAY1}T10:00:0${i}.000Z`));
      const withAuthority = tx(`${DAY1}T11:00:00.000Z`);
      const otherAuthority = tx(`${DAY1}T11:00:01.000Z`);
      const f = await seeded([
        ...records.map((record, i) => ({ record, keys: [key('patientId', values[i] as string)] })),
        { record: withAuthority, keys: [key('patientId', 'x', { authority: 'zz y' })] },
        { record: otherAuthority, keys: [key('patientId', 'xzz', { authority: 'y' })] },
      ]);
      for (const [i, value] of values.entries()) expect(await page(f.log, byKey('patientId', value.toLowerCase()))).toEqual([records[i]?._id]);
      expect(await page(f.log, byKey('patientId', 'x', 'zz y'))).toEqual([withAuthority._id]);
      expect(await page(f.log, byKey('patientId', 'xzz', 'y'))).toEqual([otherAuthority._id]);
      expect(await page(f.log, byKey('patientId', 'x', 'zz'))).toEqual([]);
      expect(await page(f.log, byKey('patientId', 'mrn'))).toEqual([]);
      expect(await page(f.log, byKey('orderNumber', 'mrn12'))).toEqual([]);
    });

    it("'any' finds a patient ID, an order number or a control ID (never a message type), each transaction once", async () => {
      const a = tx(`${DAY1}T10:00:00.000Z`);
      const b = tx(`${DAY1}T10:00:01.000Z`);
      const c = tx(`${DAY1}T10:00:02.000Z`);
      const d = tx(`${DAY1}T10:00:03.000Z`);
      const f = await seeded([
        { record: a, keys: [key('patientId', 'X1')] },
        { record: b, keys: [key('orderNumber', 'X1')] },
        { record: c, keys: [key('controlId', 'x1'), key('patientId', 'X1'), key('orderNumber', 'X1')] },
        { record: d, keys: [key('messageType', 'X1'), key('account', 'X1')] },
      ]);
      expect(await page(f.log, byKey('any', 'x1'))).toEqual([c._id, b._id, a._id]);
      expect(await f.log.count(byKey('any', 'X1'))).toBe(3);
      expect(await page(f.log, byKey('any', 'X1'), 2, 1)).toEqual([b._id, a._id]);
    });

    it('narrows by authority, and finds every repetition and every patient of a batch', async () => {
      const repeated = tx(`${DAY1}T09:00:00.000Z`);
      const otherHospital = tx(`${DAY1}T09:30:00.000Z`);
      const batch = tx(`${DAY1}T10:00:00.000Z`);
      const f = await seeded([
        // PID-3 repeated: a hospital number and a national one.
        { record: repeated, keys: [key('patientId', '123', { authority: 'HOSP' }), key('patientId', '9990001', { authority: 'NATIONAL' })] },
        { record: otherHospital, keys: [key('patientId', '123', { authority: 'CLINIC' })] },
        // An FHS/BHS batch of three messages: three patients, three control IDs in one transaction.
        { record: batch, keys: ['P1', 'P2', 'P3'].flatMap((p, i) => [key('patientId', p), key('controlId', `B-${i}`)]) },
      ]);
      expect(await page(f.log, byKey('patientId', '123'))).toEqual([otherHospital._id, repeated._id]);
      expect(await page(f.log, byKey('patientId', '123', 'hosp'))).toEqual([repeated._id]);
      expect(await page(f.log, byKey('patientId', '123', 'Clinic'))).toEqual([otherHospital._id]);
      expect(await page(f.log, byKey('patientId', '123', 'NATIONAL'))).toEqual([]);
      expect(await page(f.log, byKey('patientId', '9990001'))).toEqual([repeated._id]);
      for (const p of ['P1', 'P2', 'P3']) expect(await page(f.log, byKey('patientId', p))).toEqual([batch._id]);
      expect(await page(f.log, byKey('controlId', 'B-2'))).toEqual([batch._id]);
      // Several conditions must all hold.
      expect(await page(f.log, { keys: [{ name: 'patientId', value: 'P1' }, { name: 'controlId', value: 'B-1' }] })).toEqual([batch._id]);
      expect(await page(f.log, { keys: [{ name: 'patientId', value: 'P1' }, { name: 'patientId', value: '123' }] })).toEqual([]);
    });

    it('finds by words: all of them, any case, plain words only (no query syntax passes through)', async () => {
      const glucose = tx(`${DAY1}T10:00:00.000Z`);
      const both = tx(`${DAY1}T10:00:01.000Z`);
      const syntax = tx(`${DAY1}T10:00:02.000Z`);
      const f = await seeded([
        { record: glucose, keys: [], text: 'OBX|1|NM|GLU^Glucose||5.4|mmol/L' },
        { record: both, keys: [key('patientId', 'P9')], text: '{"resourceType":"Observation","code":{"text":"Glucose fasting"},"valueQuantity":{"value":6}}' },
        { record: syntax, keys: [], text: 'NEAR OR AND NOT col:value "quoted" star*' },
      ]);
      expect(await page(f.log, { text: 'glucose' })).toEqual([both._id, glucose._id]);
      expect(await page(f.log, { text: 'GLUCOSE Fasting' })).toEqual([both._id]);
      expect(await page(f.log, { text: 'glucose cholesterol' })).toEqual([]);
      expect(await page(f.log, { text: 'mmol/L' })).toEqual([glucose._id]);
      expect(await page(f.log, { text: 'Observation' })).toEqual([both._id]);
      // Operators and punctuation are words or separators, never syntax: no error, and only what holds every word.
      expect(await page(f.log, { text: 'glucose OR cholesterol' })).toEqual([]);
      expect(await page(f.log, { text: 'NEAR(' })).toEqual([syntax._id]);
      expect(await page(f.log, { text: '"quoted" col:value' })).toEqual([syntax._id]);
      expect(await page(f.log, { text: 'star*' })).toEqual([syntax._id]);
      expect(await page(f.log, { text: 'NOT glucose' })).toEqual([]);
      expect(await f.log.count({ text: 'glucose' })).toBe(2);
      // Words and keys together.
      expect(await page(f.log, { text: 'glucose', keys: [{ name: 'patientId', value: 'p9' }] })).toEqual([both._id]);
      expect(await page(f.log, { text: 'mmol', keys: [{ name: 'patientId', value: 'p9' }] })).toEqual([]);
      await expect(f.log.page({ text: '--- !!' }, { limit: 5 })).rejects.toBeInstanceOf(StoreError);
    });

    it('combines keys and words with the channel, time, status and document filters', async () => {
      const early = tx(`${DAY1}T08:00:00.000Z`, { channelID: 'ch-a' });
      const failed = tx(`${DAY1}T12:00:00.000Z`, { channelID: 'ch-a', status: 'Failed', properties: { ward: 'east' } });
      const otherChannel = tx(`${DAY2}T08:00:00.000Z`, { channelID: 'ch-b' });
      const late = tx(`${DAY3}T08:00:00.000Z`, { channelID: 'ch-a' });
      const all = [early, failed, otherChannel, late];
      const f = await seeded(all.map((record) => ({ record, keys: [key('patientId', 'PAT-1')], text: 'hemoglobin panel' })));
      for (const filter of [byKey('patientId', 'PAT-1'), { text: 'Hemoglobin' }] as TransactionFilter[]) {
        expect(await page(f.log, filter)).toEqual([late._id, otherChannel._id, failed._id, early._id]);
        expect(await page(f.log, { ...filter, channelID: ['ch-b'] })).toEqual([otherChannel._id]);
        expect(await page(f.log, { ...filter, channelID: [] })).toEqual([]);
        expect(await page(f.log, { ...filter, from: new Date(`${DAY1}T09:00:00Z`), to: new Date(`${DAY2}T23:59:59Z`) })).toEqual([otherChannel._id, failed._id]);
        expect(await page(f.log, { ...filter, from: new Date(`${DAY1}T12:00:00.000Z`), to: new Date(`${DAY1}T12:00:00.000Z`) })).toEqual([failed._id]);
        expect(await page(f.log, { ...filter, status: ['Failed'] })).toEqual([failed._id]);
        expect(await page(f.log, { ...filter, properties: { ward: 'east' } })).toEqual([failed._id]);
        expect(await page(f.log, { ...filter, statusCode: '5xx' })).toEqual([]);
        expect(await f.log.count({ ...filter, channelID: ['ch-a'] })).toBe(3);
        expect(await f.log.count({ ...filter, from: new Date(`${DAY1}T09:00:00Z`), to: new Date(`${DAY2}T23:59:59Z`) })).toBe(2);
        expect(await f.log.countUpTo({ ...filter, from: new Date(`${DAY1}T12:00:00.001Z`) }, 5)).toEqual({ count: 2, exact: true });
        expect(await streamed(f.log, { ...filter, channelID: ['ch-a'] })).toEqual([late._id, failed._id, early._id]);
      }
    });

    it('pages and streams newest first (time, then id), the same as the log without a search, across many seconds and one millisecond', async () => {
      const records: TransactionRecord[] = [];
      for (let i = 0; i < 24; i++) records.push(tx(new Date(Date.parse(`${DAY1}T10:00:00.000Z`) + Math.floor(i / 3) * 700).toISOString()));
      // Three transactions of the same millisecond: the log orders them by id.
      for (let i = 0; i < 3; i++) records.push(tx(`${DAY1}T09:00:00.000Z`));
      const f = await open();
      // Inserted and indexed out of order, as the backfill indexes older transactions after newer ones.
      const shuffled = [...records].sort((a, b) => (a._id.slice(-4) < b._id.slice(-4) ? -1 : 1));
      for (const record of shuffled) await f.log.insert(record);
      for (const record of shuffled) await f.index.write([entry(record, [key('patientId', 'SAME'), key('messageType', 'ORU')], 'common words here')]);
      const expected = await page(f.log, {}, 100);
      expect(expected).toHaveLength(27);
      for (const filter of [byKey('patientId', 'same'), byKey('any', 'SAME'), { text: 'common here' }, { text: 'words', keys: [{ name: 'messageType', value: 'oru' }] }] as TransactionFilter[]) {
        expect(await page(f.log, filter, 100)).toEqual(expected);
        expect(await page(f.log, filter, 5)).toEqual(expected.slice(0, 5));
        expect(await page(f.log, filter, 5, 10)).toEqual(expected.slice(10, 15));
        expect(await page(f.log, filter, 5, 25)).toEqual(expected.slice(25));
        expect(await page(f.log, filter, 0)).toEqual([]);
        expect(await streamed(f.log, filter)).toEqual(expected);
        const limited: string[] = [];
        for await (const record of f.log.stream(filter, { limit: 4, skip: 2 })) limited.push(record._id);
        expect(limited).toEqual(expected.slice(2, 6));
        expect(await f.log.count(filter)).toBe(27);
      }
    });

    it('counts up to a cap and says whether the count is exact, with and without a search', async () => {
      const records = Array.from({ length: 7 }, (_v, i) => tx(`${DAY1}T10:00:0${i}.000Z`, { status: i < 5 ? 'Successful' : 'Failed' }));
      const f = await seeded(records.map((record) => ({ record, keys: [key('patientId', 'C1')], text: 'alpha beta' })));
      for (const filter of [{}, byKey('patientId', 'C1'), { text: 'alpha' }, { properties: {} }] as TransactionFilter[]) {
        expect(await f.log.countUpTo(filter, 3)).toEqual({ count: 3, exact: false });
        expect(await f.log.countUpTo(filter, 7)).toEqual({ count: 7, exact: true });
        expect(await f.log.countUpTo(filter, 100)).toEqual({ count: 7, exact: true });
        expect(await f.log.countUpTo(filter, 0)).toEqual({ count: 0, exact: false });
      }
      expect(await f.log.countUpTo({ ...byKey('patientId', 'C1'), status: ['Failed'] }, 10)).toEqual({ count: 2, exact: true });
      expect(await f.log.countUpTo({ text: 'gamma' }, 10)).toEqual({ count: 0, exact: true });
      await expect(f.log.countUpTo({}, -1)).rejects.toBeInstanceOf(StoreError);
      await expect(f.log.countUpTo({ keys: [{ name: 'nope' as 'patientId', value: 'x' }] }, 5)).rejects.toBeInstanceOf(StoreError);
    });

    it('answers keysOf with the searchable keys as extracted, for indexed transactions with any', async () => {
      const a = tx(`${DAY1}T10:00:00.000Z`);
      const b = tx(`${DAY1}T10:00:01.000Z`);
      const c = tx(`${DAY1}T10:00:02.000Z`);
      const aKeys = [key('patientId', 'Mrn-1', { authority: 'Hosp', field: 'PID-3' }), key('visit', 'V-7'), key('patientId', 'Pat/2', { field: 'Observation.subject', part: 'response' })];
      const f = await seeded([
        { record: a, keys: aKeys },
        { record: b, keys: [], text: 'words only' },
      ]);
      await f.log.insert(c);
      const d = tx(`${DAY1}T10:00:03.000Z`);
      await f.log.insert(d);
      await f.index.write([entry(d, [key('visit', 'V-8')], 'a visit only')]);
      const found = await f.index.keysOf([a._id, b._id, c._id, d._id, 'ffffffffffffffffffffffff']);
      expect([...found.keys()]).toEqual([a._id]);
      // The visit (PV1-19) is read, shown nowhere, and not kept.
      expect(found.get(a._id)).toEqual(expect.arrayContaining([aKeys[0], aKeys[2]]));
      expect(found.get(a._id)).toHaveLength(2);
      expect((await f.index.keysOf([])).size).toBe(0);
    });

    it('replaces a transaction\'s entries when it is written again (idempotent), and skips transactions no longer stored', async () => {
      const a = tx(`${DAY1}T10:00:00.000Z`);
      const gone = tx(`${DAY1}T10:00:01.000Z`);
      const f = await seeded([{ record: a, keys: [key('patientId', 'OLD')], text: 'first version' }]);
      const before = await f.index.stats();
      await f.index.write([entry(a, [key('patientId', 'OLD')], 'first version')]);
      expect(await f.index.stats()).toEqual(before);
      expect(before.transactions).toBe(1);
      await f.index.write([entry(a, [key('patientId', 'NEW')], 'second version')]);
      expect(await page(f.log, byKey('patientId', 'old'))).toEqual([]);
      expect(await page(f.log, byKey('patientId', 'new'))).toEqual([a._id]);
      expect(await page(f.log, { text: 'first' })).toEqual([]);
      expect(await page(f.log, { text: 'second version' })).toEqual([a._id]);
      expect((await f.index.keysOf([a._id])).get(a._id)).toEqual([key('patientId', 'NEW')]);
      // Indexed after it was removed from the log (retention ran between the indexer's read and its write): never found.
      await f.index.write([entry(gone, [key('patientId', 'NEW')], 'second version')]);
      expect(await page(f.log, byKey('patientId', 'new'))).toEqual([a._id]);
      expect(await f.log.count({ text: 'second' })).toBe(1);
    });

    it('takes a batch with the same transaction twice (the later entry wins) and many transactions of one second, counting each once', async () => {
      const a = tx(`${DAY1}T10:00:00.000Z`);
      const sameSecond = Array.from({ length: 30 }, (_, i) => tx(`${DAY1}T10:00:00.${String(i + 1).padStart(3, '0')}Z`));
      const f = await open();
      for (const record of [a, ...sameSecond]) await f.log.insert(record);
      await f.index.write([
        entry(a, [key('patientId', 'FIRST')], 'first version'),
        ...sameSecond.map((record, i) => entry(record, [key('orderNumber', `ORD-${i}`)], `result ${i}`)),
        entry(a, [key('patientId', 'LATER')], 'later version'),
      ]);
      expect(await f.index.stats()).toMatchObject({ transactions: 31, keys: 31 });
      expect(await page(f.log, byKey('patientId', 'first'))).toEqual([]);
      expect(await page(f.log, { text: 'first' })).toEqual([]);
      expect(await page(f.log, byKey('patientId', 'later'))).toEqual([a._id]);
      expect(await page(f.log, { text: 'later' })).toEqual([a._id]);
      // Each of one second found alone by its own key and word (every docid of the second distinct).
      for (const [i, record] of sameSecond.entries()) expect(await page(f.log, byKey('orderNumber', `ord-${i}`))).toEqual([record._id]);
      expect(await f.log.count({ text: 'result' })).toBe(30);
      await f.log.remove(a._id);
      expect(await f.index.stats()).toMatchObject({ transactions: 30, keys: 30 });
    });

    it('estimatedCount counts a small log exactly (the walk back\'s total at the first run)', async () => {
      const f = await open();
      expect(await f.log.estimatedCount()).toEqual({ count: 0, exact: true });
      for (const at of ['10:00:00', '10:00:01', '11:00:00']) await f.log.insert(tx(`${DAY1}T${at}.000Z`));
      await f.log.insert(tx(`${DAY2}T10:00:00.000Z`));
      expect(await f.log.estimatedCount()).toEqual({ count: 4, exact: true });
    });

    it('removes the entries with the transaction: remove(id) and dropDaysBefore', async () => {
      const day1 = tx(`${DAY1}T10:00:00.000Z`);
      const day2 = tx(`${DAY2}T10:00:00.000Z`);
      const day3 = tx(`${DAY3}T10:00:00.000Z`);
      const f = await seeded([day1, day2, day3].map((record) => ({ record, keys: [key('patientId', 'R1'), key('controlId', record._id)], text: 'retained words' })));
      expect((await f.index.stats()).transactions).toBe(3);
      expect(await f.log.remove(day2._id)).toBe(true);
      expect(await page(f.log, byKey('patientId', 'R1'))).toEqual([day3._id, day1._id]);
      expect((await f.index.keysOf([day2._id])).size).toBe(0);
      expect((await f.index.stats()).transactions).toBe(2);
      // Day 2 was emptied by remove(): the engines differ on whether an emptied day is still reported as dropped.
      expect(await f.log.dropDaysBefore(DAY3)).toContain(DAY1);
      expect(await page(f.log, byKey('patientId', 'R1'))).toEqual([day3._id]);
      expect(await page(f.log, { text: 'retained' })).toEqual([day3._id]);
      expect((await f.index.keysOf([day1._id, day3._id])).size).toBe(1);
      const stats = await f.index.stats();
      expect(stats.transactions).toBe(1);
      expect(stats.keys).toBeGreaterThan(0);
      // A transaction stored again with the same id after its removal is found only once indexed again.
      await f.log.insert(day2);
      expect(await page(f.log, byKey('patientId', 'R1'))).toEqual([day3._id]);
    });

    it("removeChannelTextBefore drops one channel's words before a day, keeping its keys and the other channels' words", async () => {
      const oldA = tx(`${DAY1}T10:00:00.000Z`, { channelID: 'ch-a' });
      const oldB = tx(`${DAY1}T11:00:00.000Z`, { channelID: 'ch-b' });
      const newA = tx(`${DAY2}T10:00:00.000Z`, { channelID: 'ch-a' });
      const f = await seeded([oldA, oldB, newA].map((record) => ({ record, keys: [key('patientId', 'T1')], text: 'bodies age out' })));
      expect(await f.index.removeChannelTextBefore('ch-a', DAY2)).toBe(1);
      expect(await page(f.log, { text: 'bodies' })).toEqual([newA._id, oldB._id]);
      expect(await page(f.log, byKey('patientId', 'T1'))).toEqual([newA._id, oldB._id, oldA._id]);
      expect((await f.index.keysOf([oldA._id])).get(oldA._id)).toEqual([key('patientId', 'T1')]);
      expect(await f.index.removeChannelTextBefore('ch-a', DAY2)).toBe(0);
      expect(await f.index.removeChannelTextBefore('ch-none', DAY3)).toBe(0);
      await expect(f.index.removeChannelTextBefore('ch-a', 'yesterday')).rejects.toBeInstanceOf(StoreError);
    });

    it('keeps the state with the entries, across a reopen', async () => {
      const f = await open();
      expect(await f.index.state()).toEqual({ finishedSeq: 0, backfillBefore: null, backfillDone: false, backfillTotal: 0, backfillCovered: 0 });
      const a = tx(`${DAY1}T10:00:00.000Z`);
      await f.log.insert(a);
      await f.index.write([entry(a, [key('patientId', 'S1')])], { finishedSeq: 12, backfillBefore: a._id, backfillTotal: 40 });
      await f.index.write([], { backfillCovered: 5 });
      expect(await f.index.state()).toEqual({ finishedSeq: 12, backfillBefore: a._id, backfillDone: false, backfillTotal: 40, backfillCovered: 5 });
      await f.index.write([], { backfillDone: true, backfillBefore: null });
      await f.log.close();
      const again = await open(f.location);
      expect(await again.index.state()).toEqual({ finishedSeq: 12, backfillBefore: null, backfillDone: true, backfillTotal: 40, backfillCovered: 5 });
      expect(await page(again.log, byKey('patientId', 'S1'))).toEqual([a._id]);
      expect((await again.index.stats()).transactions).toBe(1);
    });
  });
}
