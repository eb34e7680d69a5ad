/** The NeDB transaction log: day partitions, the LRU bound, the day index, the in-flight journal, filters, damage. */
import { appendFile, readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createNedbTransactionLog, newTransactionId } from '../../service/storage/nedb/transaction-log.js';
import type { NedbTransactionLog } from '../../service/storage/nedb/transaction-log.js';
import { StoreError } from '../../service/storage/store.js';
import type { TransactionFilter, TransactionRecord } from '../../service/storage/transactions.js';
import { memoryLogger } from '../helpers/logger.js';
import { tempDir } from '../helpers/junction.js';

const silent = pino({ level: 'silent' });
const DAY1 = '2024-03-01';
const DAY2 = '2024-03-02';
const DAY3 = '2024-03-03';

/** A lean transaction at `at` (ISO time) whose id encodes that time. */
function tx(at: string, overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  const timestamp = new Date(at);
  return {
    _id: newTransactionId(timestamp),
    channelID: 'ch-a',
    clientIP: '127.0.0.1',
    status: 'Successful',
    request: { path: '/fhir/Patient', querystring: '', method: 'GET', headers: {}, timestamp },
    response: { status: 200, headers: {}, timestamp: new Date(timestamp.getTime() + 5) },
    routes: [],
    orchestrations: [],
    canRerun: true,
    autoRetry: false,
    autoRetryAttempt: 0,
    ...overrides,
  };
}

describe('NeDB transaction log', () => {
  const dirs: string[] = [];
  const logs: NedbTransactionLog[] = [];

  async function dir(): Promise<string> {
    const d = await tempDir('junction-txlog-');
    dirs.push(d);
    return d;
  }

  async function openLog(at: string, options: { max?: number; logger?: Logger } = {}): Promise<NedbTransactionLog> {
    const log = createNedbTransactionLog({ dir: at, logger: options.logger ?? silent, maxOpenPartitions: options.max });
    logs.push(log);
    await log.open();
    return log;
  }

  /** A closed folder holding the given transactions; returns it and the stored records. */
  async function seeded(docs: TransactionRecord[]): Promise<string> {
    const d = await dir();
    const log = await openLog(d, { max: 3 });
    for (const doc of docs) await log.insert(doc);
    await log.close();
    return d;
  }

  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close();
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  describe('ids and documents', () => {
    it('encodes the request second in the first 8 hex characters', () => {
      const id = newTransactionId(new Date('2024-03-01T10:00:00.900Z'));
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      expect(Number.parseInt(id.slice(0, 8), 16)).toBe(Date.parse('2024-03-01T10:00:00Z') / 1000);
      expect(newTransactionId(new Date(0))).not.toBe(newTransactionId(new Date(0)));
    });

    it('inserts, gets, updates and removes across days, one private datafile per day', async () => {
      const d = await dir();
      const log = await openLog(d);
      const first = tx(`${DAY1}T23:59:59.500Z`, { routes: [{ name: 'r', request: tx(`${DAY1}T23:59:59.600Z`).request }] });
      const second = tx(`${DAY2}T00:00:00.000Z`, { status: 'Processing', request: { ...tx(`${DAY2}T00:00:00.000Z`).request, method: 'post' } });
      const stored = await log.insert(first);
      await log.insert(second);
      expect(stored).toEqual(first);
      expect((await readdir(d)).sort()).toEqual([`${DAY1}.db`, `${DAY2}.db`, 'index.db', 'inflight.db']);
      expect(((await stat(d)).mode & 0o777).toString(8)).toBe('700');
      expect(((await stat(join(d, `${DAY1}.db`))).mode & 0o777).toString(8)).toBe('600');

      const got = await log.get(second._id);
      expect(got?.request.method).toBe('POST');
      expect(got?.request.timestamp).toBeInstanceOf(Date);
      got!.channelID = 'changed by the caller';
      expect((await log.get(second._id))?.channelID).toBe('ch-a');

      const response = { status: 201, headers: {}, timestamp: new Date(`${DAY2}T00:00:01Z`) };
      const updated = await log.update(second._id, { set: { status: 'Successful', response } });
      expect(updated?.status).toBe('Successful');
      expect(updated?.response?.timestamp).toEqual(response.timestamp);
      await log.close();

      const again = await openLog(d);
      const reread = await again.get(first._id);
      expect(reread).toEqual(first);
      expect(reread?.routes[0]?.request.timestamp).toBeInstanceOf(Date);
      expect((await again.get(second._id))?.response?.status).toBe(201);
      expect(await again.remove(first._id)).toBe(true);
      expect(await again.remove(first._id)).toBe(false);
      expect(await again.get(first._id)).toBeNull();
      expect(await again.update(first._id, { set: { status: 'Failed' } })).toBeNull();
    });

    it('refuses an id whose time is not on the request day, and an update moving the request to another day', async () => {
      const log = await openLog(await dir());
      await expect(log.insert({ ...tx(`${DAY1}T10:00:00Z`), _id: newTransactionId(new Date(`${DAY2}T10:00:00Z`)) })).rejects.toBeInstanceOf(StoreError);
      await expect(log.insert({ ...tx(`${DAY1}T10:00:00Z`), _id: 'not-an-id' })).rejects.toBeInstanceOf(StoreError);
      const doc = await log.insert(tx(`${DAY1}T10:00:00Z`));
      const moved = { ...doc.request, timestamp: new Date(`${DAY2}T10:00:00Z`) };
      await expect(log.update(doc._id, { set: { request: moved } })).rejects.toThrow(/another day/);
    });

    it('answers malformed and foreign ids with null or false without loading any partition', async () => {
      const d = await seeded([tx(`${DAY1}T10:00:00Z`)]);
      const log = await openLog(d);
      for (const id of ['', 'xyz', 'ABCDEF0123456789abcdef01', '0'.repeat(25), newTransactionId(new Date(`${DAY3}T01:00:00Z`))]) {
        expect(await log.get(id)).toBeNull();
        expect(await log.update(id, { set: { status: 'Failed' } })).toBeNull();
        expect(await log.remove(id)).toBe(false);
      }
      expect(log.openPartitions()).toBe(0);
    });
  });

  describe('page, count and filters', () => {
    // Three days, two channels; day 2 holds only ch-b so a ch-a filter must skip it.
    const docs = [
      tx(`${DAY1}T08:00:00Z`, { channelID: 'ch-a', status: 'Failed', response: { status: 503, headers: {}, timestamp: new Date(`${DAY1}T08:00:01Z`) } }),
      tx(`${DAY1}T09:00:00Z`, { channelID: 'ch-a', clientID: 'client-1', properties: { ward: 'east', bed: '4' } }),
      tx(`${DAY2}T08:00:00Z`, { channelID: 'ch-b', wasRerun: true, request: { ...tx(`${DAY2}T08:00:00Z`).request, method: 'post', path: '/hl7/ORU' } }),
      tx(`${DAY2}T09:00:00Z`, { channelID: 'ch-b', status: 'Completed', response: { status: 404, headers: {}, timestamp: new Date(`${DAY2}T09:00:01Z`) } }),
      tx(`${DAY3}T08:00:00Z`, { channelID: 'ch-a', status: 'Processing', response: undefined }),
      tx(`${DAY3}T09:00:00Z`, { channelID: 'ch-a', status: 'Completed with error(s)', properties: { ward: 'west' } }),
    ];
    const at = (i: number): string => docs[i]!._id;
    const ids = (records: TransactionRecord[]): string[] => records.map((r) => r._id);

    it('pages newest first across day boundaries with skip and limit', async () => {
      const log = await openLog(await seeded(docs));
      expect(ids(await log.page({}, { limit: 10 }))).toEqual([5, 4, 3, 2, 1, 0].map(at));
      expect(ids(await log.page({}, { limit: 3, skip: 1 }))).toEqual([4, 3, 2].map(at));
      expect(ids(await log.page({}, { limit: 2, skip: 4 }))).toEqual([1, 0].map(at));
      expect(await log.page({}, { limit: 5, skip: 6 })).toEqual([]);
      expect(await log.page({}, { limit: 0 })).toEqual([]);
      expect(await log.count({})).toBe(6);
    });

    it('loads only the newest day for a small newest-first page', async () => {
      const log = await openLog(await seeded(docs));
      expect(ids(await log.page({}, { limit: 2 }))).toEqual([5, 4].map(at));
      expect(log.openPartitions()).toBe(1);
    });

    const cases: [string, TransactionFilter, number[]][] = [
      ['status list', { status: ['Failed', 'Completed'] }, [3, 0]],
      ['5xx', { statusCode: '5xx' }, [0]],
      ['404', { statusCode: '404' }, [3]],
      ['channel', { channelID: ['ch-a'] }, [5, 4, 1, 0]],
      ['client', { clientID: 'client-1' }, [1]],
      ['method, any case', { method: 'Post' }, [2]],
      ['path regex', { path: '^/hl7/' }, [2]],
      ['date range', { from: new Date(`${DAY1}T08:30:00Z`), to: new Date(`${DAY2}T08:00:00Z`) }, [2, 1]],
      ['properties', { properties: { ward: 'east', bed: '4' } }, [1]],
      ['property mismatch', { properties: { ward: 'east', bed: '5' } }, []],
      ['wasRerun', { wasRerun: true }, [2]],
      ['not rerun', { wasRerun: false }, [5, 4, 3, 1, 0]],
      ['combined', { channelID: ['ch-a'], status: ['Successful', 'Completed with error(s)'], from: new Date(`${DAY1}T00:00:00Z`) }, [5, 1]],
    ];
    it.each(cases)('filters by %s', async (_name, filter, expected) => {
      const log = await openLog(await seeded(docs));
      expect(ids(await log.page(filter, { limit: 10 }))).toEqual(expected.map(at));
      expect(await log.count(filter)).toBe(expected.length);
      const streamed: string[] = [];
      for await (const doc of log.stream(filter)) streamed.push(doc._id);
      expect(streamed).toEqual(expected.map(at));
    });

    it('skips days whose index shows none of the channels, without loading them', async () => {
      const { logger, lines } = memoryLogger();
      const log = await openLog(await seeded(docs), { logger });
      expect(await log.count({ channelID: ['ch-b'] })).toBe(2);
      expect(log.openPartitions()).toBe(1);
      const loaded = lines.filter((l) => l.msg === 'transaction partition loaded').map((l) => l.day);
      expect(loaded).toEqual([DAY2]);
      expect(await log.count({ channelID: ['nobody'] })).toBe(0);
      expect(log.openPartitions()).toBe(1);
    });

    it('loads only the days inside the date range', async () => {
      const log = await openLog(await seeded(docs));
      expect(await log.count({ from: new Date(`${DAY3}T00:00:00Z`) })).toBe(2);
      expect(log.openPartitions()).toBe(1);
    });

    it.each<[string, TransactionFilter]>([
      ['an invalid regex', { path: '([a-z' }],
      ['an over-long regex', { path: 'a'.repeat(501) }],
      ['a malformed status code', { statusCode: '6xx' }],
      ['an unknown status', { status: ['Done' as never] }],
      ['a property name with a dot', { properties: { 'a.b': 'x' } }],
      ['an unknown filter', { colour: 'red' } as TransactionFilter],
    ])('rejects %s with StoreError before loading anything', async (_name, filter) => {
      const log = await openLog(await seeded(docs));
      await expect(log.page(filter, { limit: 5 })).rejects.toBeInstanceOf(StoreError);
      await expect(log.count(filter)).rejects.toBeInstanceOf(StoreError);
      await expect(log.stream(filter)[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(StoreError);
      expect(log.openPartitions()).toBe(0);
    });
  });

  describe('memory bound', () => {
    it('streams 3,000 documents over 3 days newest first with one partition in memory', async () => {
      const d = await dir();
      const writer = await openLog(d, { max: 1 });
      const base = Date.parse(`${DAY1}T00:00:00Z`);
      // 1,000 a day, some sharing a millisecond so the stream's tie-break on the id is exercised.
      for (let i = 0; i < 3000; i += 1) await writer.insert(tx(new Date(base + Math.floor(i / 1000) * 86_400_000 + Math.floor((i % 1000) / 2) * 1000).toISOString()));
      await writer.close();
      const log = await openLog(d, { max: 1 });
      let previous: TransactionRecord | null = null;
      let seen = 0;
      let most = 0;
      const unique = new Set<string>();
      for await (const doc of log.stream({})) {
        if (previous !== null) {
          const order = previous.request.timestamp.getTime() - doc.request.timestamp.getTime() || previous._id.localeCompare(doc._id);
          expect(order).toBeGreaterThan(0);
        }
        previous = doc;
        unique.add(doc._id);
        seen += 1;
        most = Math.max(most, log.openPartitions());
      }
      expect(seen).toBe(3000);
      expect(unique.size).toBe(3000);
      expect(most).toBe(1);
      expect(await log.count({})).toBe(3000);
    });

    it('keeps at most maxOpenPartitions loaded under concurrent queries, and evicted writes persist', async () => {
      const d = await dir();
      const log = await openLog(d, { max: 2 });
      const days = ['01', '02', '03', '04', '05'].map((n) => `2024-04-${n}T12:00:00Z`);
      let most = 0;
      const sample = setInterval(() => (most = Math.max(most, log.openPartitions())), 1);
      const inserted = await Promise.all(days.flatMap((day) => [log.insert(tx(day)), log.insert(tx(day, { channelID: 'ch-z' }))]));
      await Promise.all(inserted.map((doc) => log.update(doc._id, { set: { status: 'Failed' } })));
      const got = await Promise.all(inserted.map((doc) => log.get(doc._id)));
      clearInterval(sample);
      most = Math.max(most, log.openPartitions());
      expect(most).toBeLessThanOrEqual(2);
      expect(got.every((doc) => doc?.status === 'Failed')).toBe(true);
      await log.close();
      const again = await openLog(d, { max: 2 });
      expect(await again.count({ status: ['Failed'] })).toBe(10);
      expect(await again.count({ channelID: ['ch-z'] })).toBe(5);
    });
  });

  describe('crash recovery', () => {
    it('fails the transactions left Processing by a crash, from the journal, then clears it', async () => {
      const d = await dir();
      const crashed = createNedbTransactionLog({ dir: d, logger: silent });
      await crashed.open();
      const a = await crashed.insert(tx(`${DAY1}T10:00:00Z`, { status: 'Processing' }));
      const b = await crashed.insert(tx(`${DAY2}T10:00:00Z`, { status: 'Processing' }));
      const done = await crashed.insert(tx(`${DAY2}T11:00:00Z`, { status: 'Processing' }));
      await crashed.update(done._id, { set: { status: 'Successful' } });
      await crashed.insert(tx(`${DAY2}T12:00:00Z`));
      // No close(): the object is simply abandoned, as a killed process would leave its files.

      const log = await openLog(d, { max: 1 });
      expect(log.openPartitions()).toBe(0);
      expect(await log.failInterrupted()).toBe(2);
      for (const id of [a._id, b._id]) {
        const failed = await log.get(id);
        expect(failed?.status).toBe('Failed');
        expect(failed?.error?.message).toMatch(/^Interrupted: Junction stopped/);
      }
      expect((await log.get(done._id))?.status).toBe('Successful');
      expect(await log.failInterrupted()).toBe(0);
      await log.close();
      const again = await openLog(d);
      expect(await again.failInterrupted()).toBe(0);
      expect(again.openPartitions()).toBe(0);
    });
  });

  describe('index and retention', () => {
    it('answers days() and hasChannel() from the index alone', async () => {
      const d = await seeded([tx(`${DAY2}T10:00:00Z`, { channelID: 'ch-b' }), tx(`${DAY1}T10:00:00Z`)]);
      const log = await openLog(d);
      expect(await log.days()).toEqual([DAY1, DAY2]);
      expect(await log.hasChannel('ch-b')).toBe(true);
      expect(await log.hasChannel('ch-x')).toBe(false);
      expect(log.openPartitions()).toBe(0);
    });

    it('finds a partition missing from the index and learns its channels when loaded', async () => {
      const d = await seeded([tx(`${DAY1}T10:00:00Z`, { channelID: 'ch-b' }), tx(`${DAY2}T10:00:00Z`)]);
      await rm(join(d, 'index.db'));
      const log = await openLog(d);
      expect(await log.days()).toEqual([DAY1, DAY2]);
      expect(await log.count({ channelID: ['ch-b'] })).toBe(1);
      expect(await log.hasChannel('ch-b')).toBe(true);
      expect(await log.hasChannel('ch-x')).toBe(false);
    });

    it('dropDaysBefore deletes the partitions and their index entries', async () => {
      const old = tx(`${DAY1}T10:00:00Z`);
      const d = await seeded([old, tx(`${DAY2}T10:00:00Z`, { channelID: 'ch-b' }), tx(`${DAY3}T10:00:00Z`)]);
      const log = await openLog(d);
      expect(await log.get(old._id)).not.toBeNull();
      expect(await log.dropDaysBefore(DAY3)).toEqual([DAY1, DAY2]);
      expect((await readdir(d)).filter((f) => /^\d{4}/.test(f))).toEqual([`${DAY3}.db`]);
      expect(await log.days()).toEqual([DAY3]);
      expect(await log.get(old._id)).toBeNull();
      expect(await log.hasChannel('ch-b')).toBe(false);
      await expect(log.dropDaysBefore('yesterday')).rejects.toBeInstanceOf(StoreError);
      await log.close();
      expect(await (await openLog(d)).days()).toEqual([DAY3]);
    });
  });

  describe('damaged partition', () => {
    it('starts, serves other days, and fails only the queries that need the damaged day, naming the file', async () => {
      const old = tx(`${DAY1}T10:00:00Z`, { status: 'Processing' });
      const d = await dir();
      const crashed = await openLog(d);
      await crashed.insert(old);
      await crashed.insert(tx(`${DAY2}T10:00:00Z`));
      await crashed.close();
      const file = join(d, `${DAY1}.db`);
      await appendFile(file, '{"_id": "cut off\n');
      const before = await readFile(file);

      const { logger, lines } = memoryLogger();
      const log = await openLog(d, { logger });
      expect(await log.page({}, { limit: 1 })).toHaveLength(1);
      expect(await log.count({ from: new Date(`${DAY2}T00:00:00Z`) })).toBe(1);
      const err = await log.count({}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toContain(file);
      await expect(log.get(old._id)).rejects.toThrow(file);
      expect(lines.some((l) => l.level === 50 && l.file === file)).toBe(true);
      expect(await readFile(file)).toEqual(before);
    });
  });
});
