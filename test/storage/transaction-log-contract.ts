/**
 * The transaction log contract: what a caller of `TransactionLog` can observe, which every engine (SQLite today,
 * PostgreSQL later) must show. It uses the interfaces of service/storage/transactions.ts only; an engine's own
 * layout (files, checkpoints, damage) is tested beside the engine.
 *
 * Usage: `describeTransactionLogContract('SQLite', openFixture)` from a `*.test.ts` file, where `openFixture` follows
 * `OpenLogFixture` below.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import { StoreError, UniqueConstraintError } from '../../service/storage/store.js';
import { STREAM_BATCH } from '../../service/storage/transactions.js';
import type { ExchangeRecord, TransactionFilter, TransactionLog, TransactionRecord } from '../../service/storage/transactions.js';

/** One transaction log under test. */
export interface LogFixture {
  /** A log that has NOT been opened yet: the suite calls `open()` itself. */
  log: TransactionLog;
  /** Where the data lives (a folder, a database schema, ...); pass it back to the factory to reopen the same data. */
  location: string;
  /** Deletes the data at `location`; the suite closes every log first. Must tolerate data that is already gone. */
  cleanup: () => Promise<void>;
}

/**
 * Creates a log object. Without `location` it prepares a new, empty location; with one it returns a second,
 * independent log object over the data already there (the first may still be open, as a crashed process leaves it).
 */
export type OpenLogFixture = (location?: string, options?: LogOptions) => Promise<LogFixture>;

/** What the suite may choose of a log: the zone its metric buckets are cut in (default UTC) and its clock. */
export interface LogOptions {
  metricsTimeZone?: string;
  now?: () => number;
}

const DAY1 = '2024-03-01';
const DAY2 = '2024-03-02';
const DAY3 = '2024-03-03';

/** A lean transaction at `at` (ISO time) whose id encodes that time. */
export function tx(at: string, overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  const timestamp = new Date(at);
  return {
    _id: newTransactionId(timestamp),
    channelID: 'ch-a',
    clientIP: '127.0.0.1',
    status: 'Successful',
    request: { path: '/fhir/Patient', querystring: '', method: 'GET', headers: { accept: 'application/json' }, timestamp },
    response: { status: 200, headers: {}, timestamp: new Date(timestamp.getTime() + 5) },
    routes: [],
    orchestrations: [],
    canRerun: true,
    autoRetry: false,
    autoRetryAttempt: 0,
    ...overrides,
  };
}

/** A route's or orchestration's exchange with the given request line and response status. */
function exchange(name: string, line: { host: string; port: number; path: string; querystring: string }, status: number): ExchangeRecord {
  const timestamp = new Date(`${DAY1}T00:00:00Z`);
  return { name, request: { ...line, method: 'GET', headers: {}, timestamp }, response: { status, headers: {}, timestamp } };
}

/** Runs the transaction log contract against one engine. */
export function describeTransactionLogContract(label: string, openFixture: OpenLogFixture): void {
  describe(`transaction log contract: ${label}`, () => {
    const fixtures: LogFixture[] = [];

    /** A new, empty location. */
    async function dir(): Promise<string> {
      const created = await openFixture();
      fixtures.push(created);
      return created.location;
    }

    /** An open log over the data at `location`. */
    async function open(location: string, options?: LogOptions): Promise<TransactionLog> {
      const created = await openFixture(location, options);
      fixtures.push(created);
      await created.log.open();
      return created.log;
    }

    async function seeded(docs: TransactionRecord[]): Promise<string> {
      const d = await dir();
      const log = await open(d);
      for (const doc of docs) await log.insert(doc);
      await log.close();
      return d;
    }

    afterEach(async () => {
      const done = fixtures.splice(0);
      for (const created of done) await created.log.close();
      for (const created of done) await created.cleanup();
    });

    it('inserts, gets, updates and removes, and keeps everything across a reopen', async () => {
      const d = await dir();
      const log = await open(d);
      const first = tx(`${DAY1}T23:59:59.500Z`, { routes: [{ name: 'r', request: tx(`${DAY1}T23:59:59.600Z`).request }], properties: { ward: 'east' } });
      const second = tx(`${DAY2}T00:00:00.000Z`, { status: 'Processing', request: { ...tx(`${DAY2}T00:00:00.000Z`).request, method: 'post' } });
      const stored = await log.insert(first);
      await log.insert(second);
      expect(stored).toEqual(first);

      const got = await log.get(second._id);
      expect(got?.request.method).toBe('POST');
      expect(got?.request.timestamp).toBeInstanceOf(Date);
      got!.channelID = 'changed by the caller';
      expect((await log.get(second._id))?.channelID).toBe('ch-a');

      const response = { status: 201, headers: {}, timestamp: new Date(`${DAY2}T00:00:01Z`) };
      const updated = await log.update(second._id, { set: { status: 'Successful', response }, unset: ['routes'] });
      expect(updated?.status).toBe('Successful');
      expect(updated?.response?.timestamp).toEqual(response.timestamp);
      expect(updated).not.toHaveProperty('routes');
      await log.close();

      const again = await open(d);
      const reread = await again.get(first._id);
      expect(reread).toEqual(first);
      expect(reread?.routes[0]?.request.timestamp).toBeInstanceOf(Date);
      expect((await again.get(second._id))?.response?.status).toBe(201);
      expect(await again.count({ status: ['Successful'] })).toBe(2);
      expect(await again.remove(first._id)).toBe(true);
      expect(await again.remove(first._id)).toBe(false);
      expect(await again.get(first._id)).toBeNull();
      expect(await again.update(first._id, { set: { status: 'Failed' } })).toBeNull();
    });

    it("keeps a transaction's reason as inserted and as a completion sets it, in pages and streams, across a reopen (issue 36)", async () => {
      const d = await dir();
      const log = await open(d);
      const written = tx(`${DAY1}T10:00:00.000Z`, { status: 'Failed', reason: '503: lab is down for maintenance', response: { status: 503, headers: {}, timestamp: new Date(`${DAY1}T10:00:00.100Z`) } });
      const proxied = tx(`${DAY1}T10:00:01.000Z`, { status: 'Processing' });
      await log.insert(written);
      await log.insert(proxied);
      // The pipeline's completing write sets it with the final status.
      const completed = await log.update(proxied._id, { set: { status: 'Completed', response: { status: 400, headers: {}, timestamp: new Date(`${DAY1}T10:00:01.100Z`) }, reason: 'AE: Unknown patient 123' } });
      expect(completed?.reason).toBe('AE: Unknown patient 123');
      await log.close();

      const again = await open(d);
      expect((await again.page({}, { limit: 10 })).map((t) => t.reason)).toEqual(['AE: Unknown patient 123', '503: lab is down for maintenance']);
      const streamed: (string | undefined)[] = [];
      for await (const t of again.stream({ status: ['Failed'] })) streamed.push(t.reason);
      expect(streamed).toEqual(['503: lab is down for maintenance']);
      // A write that makes it succeed takes the reason away.
      const fixed = await again.update(written._id, { set: { status: 'Successful' }, unset: ['reason'] });
      expect(fixed).not.toHaveProperty('reason');
      expect(await again.get(written._id)).not.toHaveProperty('reason');
    });

    it('refuses a duplicate id, an id not on the request day, and an update moving the request to another day', async () => {
      const log = await open(await dir());
      const doc = await log.insert(tx(`${DAY1}T10:00:00Z`));
      await expect(log.insert({ ...tx(`${DAY1}T10:00:00Z`), _id: doc._id })).rejects.toBeInstanceOf(UniqueConstraintError);
      await expect(log.insert({ ...tx(`${DAY1}T10:00:00Z`), _id: newTransactionId(new Date(`${DAY2}T10:00:00Z`)) })).rejects.toBeInstanceOf(StoreError);
      await expect(log.insert({ ...tx(`${DAY1}T10:00:00Z`), _id: 'not-an-id' })).rejects.toBeInstanceOf(StoreError);
      await expect(log.insert({ ...tx(`${DAY1}T10:00:00Z`), status: 'Done' as never })).rejects.toBeInstanceOf(StoreError);
      const moved = { ...doc.request, timestamp: new Date(`${DAY2}T10:00:00Z`) };
      await expect(log.update(doc._id, { set: { request: moved } })).rejects.toThrow(/another day/);
      await expect(log.update(doc._id, { set: { status: 'Nope' as never } })).rejects.toBeInstanceOf(StoreError);
      expect(await log.count({})).toBe(1);
      expect((await log.get(doc._id))?.status).toBe('Successful');
    });

    it('finds an updated transaction by its new channel, client, method, path and time, and no longer by the old ones', async () => {
      const log = await open(await dir());
      const doc = await log.insert(tx(`${DAY1}T10:00:00Z`, { status: 'Processing', clientID: 'client-1' }));
      // The completion sets the whole request again, unchanged but for its body: found where it was.
      await log.update(doc._id, { set: { status: 'Successful', request: { ...doc.request, body: { path: `${DAY1}/ch-a/x`, size: 1, receivedBytes: 1, truncated: false } } } });
      const found = async (filter: TransactionFilter) => (await log.page(filter, { limit: 5 })).map((t) => t._id);
      expect(await found({ channelID: ['ch-a'], status: ['Successful'] })).toEqual([doc._id]);
      expect(await found({ clientID: 'client-1' })).toEqual([doc._id]);
      const later = new Date(`${DAY1}T11:00:00Z`);
      await log.update(doc._id, { set: { channelID: 'ch-b', request: { ...doc.request, method: 'POST', path: '/hl7/ORU', timestamp: later } }, unset: ['clientID'] });
      expect(await found({ channelID: ['ch-b'], method: 'POST', path: '^/hl7/' })).toEqual([doc._id]);
      expect(await found({ from: new Date(`${DAY1}T10:30:00Z`) })).toEqual([doc._id]);
      expect(await found({ channelID: ['ch-a'] })).toEqual([]);
      expect(await found({ clientID: 'client-1' })).toEqual([]);
      expect(await found({ to: new Date(`${DAY1}T10:30:00Z`) })).toEqual([]);
    });

    it('appends pushed routes and orchestrations after the set, in one write, without losing concurrent appends', async () => {
      const d = await dir();
      const log = await open(d);
      const at = `${DAY1}T08:00:00.000Z`;
      const exchangeAt = (name: string) => ({ name, request: { ...tx(at).request, method: 'post' } });
      const doc = await log.insert(tx(at, { status: 'Processing', routes: [exchangeAt('first')] }));
      const updated = await log.update(doc._id, { set: { status: 'Successful', routes: [exchangeAt('replaced')] }, push: { routes: [exchangeAt('async')], orchestrations: [exchangeAt('lookup')] } });
      expect(updated?.routes.map((r) => r.name)).toEqual(['replaced', 'async']);
      expect(updated?.routes[1]?.request.method).toBe('POST');
      expect(updated?.orchestrations.map((o) => o.name)).toEqual(['lookup']);
      await Promise.all(['a', 'b', 'c'].map((name) => log.update(doc._id, { push: { orchestrations: [exchangeAt(name)] } })));
      expect((await log.get(doc._id))?.orchestrations.map((o) => o.name).sort()).toEqual(['a', 'b', 'c', 'lookup']);
      await expect(log.update(doc._id, { push: { status: [] } as never })).rejects.toBeInstanceOf(StoreError);
      await expect(log.update(doc._id, { push: { routes: [{ name: 'no request' }] } as never })).rejects.toBeInstanceOf(StoreError);
      expect(await log.update(newTransactionId(new Date(`${DAY2}T00:00:00Z`)), { push: { routes: [exchangeAt('x')] } })).toBeNull();
      await log.close();
      const again = await open(d);
      const reread = await again.get(doc._id);
      expect(reread?.routes.map((r) => r.name)).toEqual(['replaced', 'async']);
      expect(reread?.orchestrations[0]?.request.timestamp).toBeInstanceOf(Date);
    });

    it('answers malformed and unknown ids with null or false', async () => {
      const log = await open(await seeded([tx(`${DAY1}T10:00:00Z`)]));
      for (const id of ['', 'xyz', 'ABCDEF0123456789abcdef01', '0'.repeat(25), newTransactionId(new Date(`${DAY3}T01:00:00Z`))]) {
        expect(await log.get(id)).toBeNull();
        expect(await log.update(id, { set: { status: 'Failed' } })).toBeNull();
        expect(await log.remove(id)).toBe(false);
      }
    });

    describe('page, count, stream and filters', () => {
      const docs = [
        tx(`${DAY1}T08:00:00Z`, { channelID: 'ch-a', status: 'Failed', response: { status: 503, headers: {}, timestamp: new Date(`${DAY1}T08:00:01Z`) } }),
        tx(`${DAY1}T09:00:00Z`, {
          channelID: 'ch-a',
          clientID: 'client-1',
          properties: { ward: 'east', bed: '4' },
          childIDs: ['child-1'],
          request: { ...tx(`${DAY1}T09:00:00Z`).request, host: 'his.local', port: 5001, querystring: 'patient=42&x=1' },
          orchestrations: [exchange('lookup', { host: 'mpi', port: 8080, path: '/mpi/find', querystring: 'id=42' }, 201)],
        }),
        tx(`${DAY2}T08:00:00Z`, { channelID: 'ch-b', wasRerun: true, request: { ...tx(`${DAY2}T08:00:00Z`).request, method: 'post', path: '/hl7/ORU' } }),
        tx(`${DAY2}T09:00:00Z`, {
          channelID: 'ch-b',
          status: 'Completed',
          response: { status: 404, headers: {}, timestamp: new Date(`${DAY2}T09:00:01Z`) },
          routes: [exchange('a', { host: 'up-a', port: 80, path: '/up/ok', querystring: '' }, 200), exchange('b', { host: 'up-b', port: 81, path: '/up/fail', querystring: 'q=1' }, 502)],
        }),
        tx(`${DAY3}T08:00:00Z`, { channelID: 'ch-a', status: 'Processing', response: undefined }),
        tx(`${DAY3}T09:00:00Z`, { channelID: 'ch-a', status: 'Completed with error(s)', properties: { ward: 'west' } }),
      ];
      const at = (i: number): string => docs[i]!._id;
      const ids = (records: TransactionRecord[]): string[] => records.map((r) => r._id);

      it('pages newest first across days with skip and limit', async () => {
        const log = await open(await seeded(docs));
        expect(ids(await log.page({}, { limit: 10 }))).toEqual([5, 4, 3, 2, 1, 0].map(at));
        expect(ids(await log.page({}, { limit: 3, skip: 1 }))).toEqual([4, 3, 2].map(at));
        expect(ids(await log.page({}, { limit: 2, skip: 4 }))).toEqual([1, 0].map(at));
        expect(await log.page({}, { limit: 5, skip: 6 })).toEqual([]);
        expect(await log.page({}, { limit: 0 })).toEqual([]);
        expect(await log.count({})).toBe(6);
      });

      const cases: [string, TransactionFilter, number[]][] = [
        ['status list', { status: ['Failed', 'Completed'] }, [3, 0]],
        ['empty status list', { status: [] }, []],
        ['5xx', { statusCode: '5xx' }, [0]],
        ['404', { statusCode: '404' }, [3]],
        ['channel', { channelID: ['ch-a'] }, [5, 4, 1, 0]],
        ['unknown channel', { channelID: ['nobody'] }, []],
        ['client', { clientID: 'client-1' }, [1]],
        ['method, any case', { method: 'Post' }, [2]],
        ['path regex', { path: '^/hl7/' }, [2]],
        // Would backtrack for a long time in RegExp on a longer path; the engines run patterns in linear time.
        ['nested quantifier path regex', { path: '^/(h|l|7)+/OR(U+)+$' }, [2]],
        ['date range', { from: new Date(`${DAY1}T08:30:00Z`), to: new Date(`${DAY2}T08:00:00Z`) }, [2, 1]],
        ['properties', { properties: { ward: 'east', bed: '4' } }, [1]],
        ['property mismatch', { properties: { ward: 'east', bed: '5' } }, []],
        ['property set, any value', { properties: { ward: null } }, [5, 1]],
        ['querystring regex', { querystring: '(?i)PATIENT=42' }, [1]],
        ['host and port', { host: 'his.local', port: 5001 }, [1]],
        ['another port', { port: 5002 }, []],
        ['re-run before (childIDs)', { hasChildren: true }, [1]],
        ['never re-run (no childIDs)', { hasChildren: false }, [5, 4, 3, 2, 0]],
        ['a route status class', { routes: { statusCode: '5xx' } }, [3]],
        ['conditions met by one route only', { routes: { statusCode: '5xx', host: 'up-a' } }, []],
        ['a route path and port', { routes: { path: '^/up/f', port: 81, querystring: 'q=' } }, [3]],
        ['an orchestration', { orchestrations: { statusCode: '201', host: 'mpi', path: 'find$' } }, [1]],
        ['routes with no conditions: any route', { routes: {} }, [3]],
        ['wasRerun', { wasRerun: true }, [2]],
        ['not rerun', { wasRerun: false }, [5, 4, 3, 1, 0]],
        ['combined', { channelID: ['ch-a'], status: ['Successful', 'Completed with error(s)'], from: new Date(`${DAY1}T00:00:00Z`) }, [5, 1]],
      ];
      it.each(cases)('filters by %s in page, count and stream alike', async (_name, filter, expected) => {
        const log = await open(await seeded(docs));
        expect(ids(await log.page(filter, { limit: 10 }))).toEqual(expected.map(at));
        expect(await log.count(filter)).toBe(expected.length);
        const streamed: string[] = [];
        for await (const doc of log.stream(filter)) streamed.push(doc._id);
        expect(streamed).toEqual(expected.map(at));
      });

      it.each<[string, TransactionFilter]>([
        ['an invalid regex', { path: '([a-z' }],
        ['an over-long regex', { path: 'a'.repeat(511) }],
        ['an unknown route filter', { routes: { colour: 'red' } as never }],
        ['a port that is not a number', { port: '80' as never }],
        ['an invalid route regex', { routes: { path: '([a-z' } }],
        ['a regex with a backreference', { path: '^/(a)\\1' }],
        ['a regex with a lookbehind', { path: '(?<=/hl7)/ORU' }],
        ['a malformed status code', { statusCode: '6xx' }],
        ['an unknown status', { status: ['Done' as never] }],
        ['a property name with a dot', { properties: { 'a.b': 'x' } }],
        ['an unknown filter', { colour: 'red' } as TransactionFilter],
      ])('rejects %s with StoreError', async (_name, filter) => {
        const log = await open(await seeded(docs));
        await expect(log.page(filter, { limit: 5 })).rejects.toBeInstanceOf(StoreError);
        await expect(log.count(filter)).rejects.toBeInstanceOf(StoreError);
        await expect(log.stream(filter)[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(StoreError);
      });
    });

    it('streams 3,000 documents newest first, each once, with ties broken by id', async () => {
      const d = await dir();
      const writer = await open(d);
      const base = Date.parse(`${DAY1}T00:00:00Z`);
      // 1,000 a day, two per second, so the stream's tie-break on the id is exercised.
      for (let i = 0; i < 3000; i += 1) await writer.insert(tx(new Date(base + Math.floor(i / 1000) * 86_400_000 + Math.floor((i % 1000) / 2) * 1000).toISOString()));
      await writer.close();
      const log = await open(d);
      let previous: TransactionRecord | null = null;
      const unique = new Set<string>();
      for await (const doc of log.stream({})) {
        if (previous !== null) {
          const order = previous.request.timestamp.getTime() - doc.request.timestamp.getTime() || previous._id.localeCompare(doc._id);
          expect(order).toBeGreaterThan(0);
        }
        previous = doc;
        unique.add(doc._id);
      }
      expect(unique.size).toBe(3000);
      expect(await log.count({})).toBe(3000);
    });

    it('a stream reads STREAM_BATCH rows at a time, and only when the consumer gets there', async () => {
      const base = Date.parse(`${DAY1}T00:00:00Z`);
      const docs = Array.from({ length: STREAM_BATCH * 2 + 10 }, (_, i) => tx(new Date(base + i * 1000).toISOString()));
      const log = await open(await seeded(docs));
      // Newest first: position p of the stream is docs[length - 1 - p].
      const atPosition = (p: number): string => docs[docs.length - 1 - p]!._id;
      const seen: string[] = [];
      for await (const doc of log.stream({})) {
        if (seen.length === 0) {
          // The first batch is already read: its last row still comes. The next batch is not: its first row is gone.
          await log.remove(atPosition(STREAM_BATCH - 1));
          await log.remove(atPosition(STREAM_BATCH));
        }
        seen.push(doc._id);
      }
      expect(seen).toContain(atPosition(STREAM_BATCH - 1));
      expect(seen).not.toContain(atPosition(STREAM_BATCH));
      expect(seen).toHaveLength(docs.length - 1);
    });

    it('a stream pages like page(), and limit 0 is no limit', async () => {
      const base = Date.parse(`${DAY1}T00:00:00Z`);
      const log = await open(await seeded(Array.from({ length: 30 }, (_, i) => tx(new Date(base + i * 1000).toISOString()))));
      const all = async (options?: { limit: number; skip?: number }) => {
        const out: string[] = [];
        for await (const doc of log.stream({}, options)) out.push(doc._id);
        return out;
      };
      expect(await all({ limit: 7, skip: 5 })).toEqual((await log.page({}, { limit: 7, skip: 5 })).map((r) => r._id));
      expect(await all({ limit: 0, skip: 25 })).toHaveLength(5);
      expect(await all({ limit: 0 })).toHaveLength(30);
      expect(await all()).toHaveLength(30);
    });

    it('a stream is not disturbed by inserts made while it runs', async () => {
      const d = await seeded(Array.from({ length: 1200 }, (_, i) => tx(new Date(Date.parse(`${DAY1}T00:00:00Z`) + i * 1000).toISOString())));
      const log = await open(d);
      let seen = 0;
      for await (const doc of log.stream({ to: new Date(`${DAY1}T23:59:59Z`) })) {
        seen += 1;
        if (seen % 400 === 0) await log.insert(tx(`${DAY1}T23:00:00Z`, { channelID: doc.channelID }));
      }
      expect(seen).toBe(1200);
    });

    it('fails the transactions a crash left Processing, once', async () => {
      const d = await dir();
      const crashed = await open(d);
      const a = await crashed.insert(tx(`${DAY1}T10:00:00Z`, { status: 'Processing' }));
      const b = await crashed.insert(tx(`${DAY2}T10:00:00Z`, { status: 'Processing' }));
      const done = await crashed.insert(tx(`${DAY2}T11:00:00Z`, { status: 'Processing' }));
      await crashed.update(done._id, { set: { status: 'Successful' } });
      await crashed.insert(tx(`${DAY2}T12:00:00Z`));
      // Not closed: abandoned as a killed process would leave it (the next open must cope).

      const log = await open(d);
      expect(await log.failInterrupted()).toBe(2);
      for (const id of [a._id, b._id]) {
        const failed = await log.get(id);
        expect(failed?.status).toBe('Failed');
        expect(failed?.error?.message).toMatch(/^Interrupted: Junction stopped/);
      }
      expect((await log.get(done._id))?.status).toBe('Successful');
      expect(await log.failInterrupted()).toBe(0);
      expect(await log.count({ status: ['Processing'] })).toBe(0);
      await log.close();

      // What recovery finished stays finished: the next start finds nothing left Processing.
      const again = await open(d);
      expect(await again.failInterrupted()).toBe(0);
      expect((await again.get(a._id))?.status).toBe('Failed');
    });

    it('finishes a transaction interrupted after its client was answered from what was recorded, not as Failed', async () => {
      const d = await dir();
      const crashed = await open(d);
      const at = new Date(`${DAY1}T10:00:00Z`);
      const request = { path: '/r', querystring: '', method: 'POST', headers: {}, timestamp: at };
      // What the pipeline commits before the client's answer leaves while a secondary route still runs.
      const answered = await crashed.insert(tx(`${DAY1}T10:00:00Z`, { status: 'Processing' }));
      await crashed.update(answered._id, {
        set: {
          status: 'Processing',
          statusIfInterrupted: 'Completed with error(s)',
          response: { status: 200, headers: {}, timestamp: at },
          routes: [
            { name: 'done', request, response: { status: 201, headers: {}, timestamp: at } },
            { name: 'running', request },
          ],
        },
      });
      const unanswered = await crashed.insert(tx(`${DAY1}T10:00:01Z`, { status: 'Processing' }));
      // Not closed: abandoned as a killed process would leave it.

      const log = await open(d);
      expect(await log.failInterrupted()).toBe(2);
      const recovered = await log.get(answered._id);
      expect(recovered).toMatchObject({ status: 'Completed with error(s)', response: { status: 200 } });
      expect(recovered?.error).toBeUndefined();
      expect(recovered?.statusIfInterrupted).toBeUndefined();
      expect(recovered?.routes[0]).toEqual({ name: 'done', request, response: { status: 201, headers: {}, timestamp: at } });
      expect(recovered?.routes[1]?.error?.message).toMatch(/^Interrupted: Junction stopped before this route/);
      expect(await log.get(unanswered._id)).toMatchObject({ status: 'Failed', error: { message: expect.stringMatching(/^Interrupted/) as unknown } });
      expect(await log.count({ status: ['Completed with error(s)'] })).toBe(1);
      expect(await log.failInterrupted()).toBe(0);
    });

    it('lists days, knows its channels, and drops whole days before a day, for good', async () => {
      const old = tx(`${DAY1}T10:00:00Z`);
      const d = await seeded([tx(`${DAY3}T10:00:00Z`), tx(`${DAY2}T10:00:00Z`, { channelID: 'ch-b' }), old]);
      const log = await open(d);
      expect(await log.days()).toEqual([DAY1, DAY2, DAY3]);
      expect(await log.hasChannel('ch-b')).toBe(true);
      expect(await log.hasChannel('ch-z')).toBe(false);
      expect(await log.get(old._id)).not.toBeNull();
      expect(await log.dropDaysBefore(DAY3)).toEqual([DAY1, DAY2]);
      expect(await log.days()).toEqual([DAY3]);
      expect(await log.hasChannel('ch-b')).toBe(false);
      expect(await log.get(old._id)).toBeNull();
      expect(await log.count({})).toBe(1);
      await expect(log.dropDaysBefore('2024-02-30')).rejects.toBeInstanceOf(StoreError);
      await expect(log.dropDaysBefore('yesterday')).rejects.toBeInstanceOf(StoreError);
      expect(await log.dropDaysBefore(DAY1)).toEqual([]);
      await log.close();

      const again = await open(d);
      expect(await again.days()).toEqual([DAY3]);
      expect(await again.get(old._id)).toBeNull();
    });

    it('keeps every write of concurrent inserts and updates across days, across a reopen', async () => {
      const d = await dir();
      const log = await open(d);
      const days = ['01', '02', '03', '04', '05'].map((n) => `2024-04-${n}T12:00:00Z`);
      const inserted = await Promise.all(days.flatMap((day) => [log.insert(tx(day)), log.insert(tx(day, { channelID: 'ch-z' }))]));
      await Promise.all(inserted.map((doc) => log.update(doc._id, { set: { status: 'Failed' } })));
      const got = await Promise.all(inserted.map((doc) => log.get(doc._id)));
      expect(got.every((doc) => doc?.status === 'Failed')).toBe(true);
      await log.close();

      const again = await open(d);
      expect(await again.count({ status: ['Failed'] })).toBe(10);
      expect(await again.count({ channelID: ['ch-z'] })).toBe(5);
      expect(await again.days()).toEqual(days.map((day) => day.slice(0, 10)));
    });

    describe('metrics and finished transactions', () => {
      const at = (iso: string, ms: number, status: TransactionRecord['status'], overrides: Partial<TransactionRecord> = {}) => {
        const base = tx(iso, { status, ...overrides });
        return { ...base, response: { status: status === 'Failed' ? 500 : 200, headers: {}, timestamp: new Date(base.request.timestamp.getTime() + ms) } };
      };

      it('counts each transaction once, when it first reaches a final status, in its minute, hour and day, across a reopen', async () => {
        const d = await dir();
        const log = await open(d);
        // Completed through an update, as the pipeline does.
        const first = await log.insert(tx(`${DAY1}T10:15:20Z`, { status: 'Processing', response: undefined }));
        expect(await log.metrics({ period: 'minute', from: new Date(0), to: new Date(`${DAY3}T00:00:00Z`) })).toEqual([]);
        const done = at(`${DAY1}T10:15:20Z`, 40, 'Successful');
        await log.update(first._id, { set: { status: 'Successful', response: done.response } });
        // A later change of a finished transaction does not count it again.
        await log.update(first._id, { set: { status: 'Completed' } });
        // Written finished at once, as POST /transactions may.
        await log.insert(at(`${DAY1}T10:15:50Z`, 10, 'Failed'));
        await log.insert(at(`${DAY1}T10:59:59.999Z`, 100, 'Completed with error(s)'));
        await log.insert(at(`${DAY1}T11:00:00Z`, 5, 'Successful', { channelID: 'ch-b' }));
        // No response: counted as finished, but not in the metrics (OpenHIM records only transactions with a response).
        await log.insert(tx(`${DAY1}T10:16:00Z`, { status: 'Failed', response: undefined }));
        await log.close();

        const again = await open(d);
        const minutes = await again.metrics({ period: 'minute', from: new Date(`${DAY1}T00:00:00Z`), to: new Date(`${DAY2}T00:00:00Z`) });
        expect(minutes.map((b) => [b.startTime.toISOString(), b.channelID, b.requests])).toEqual([
          ['2024-03-01T10:15:00.000Z', 'ch-a', 2],
          ['2024-03-01T10:59:00.000Z', 'ch-a', 1],
          ['2024-03-01T11:00:00.000Z', 'ch-b', 1],
        ]);
        expect(minutes[0]).toEqual({
          channelID: 'ch-a', period: 'minute', startTime: new Date('2024-03-01T10:15:00Z'), timeZone: 'UTC',
          requests: 2, successful: 1, completed: 0, completedWithErrors: 0, failed: 1, processing: 0,
          minResponseTime: 10, maxResponseTime: 40, totalResponseTime: 50,
        });
        const hours = await again.metrics({ period: 'hour', from: new Date(`${DAY1}T00:00:00Z`), to: new Date(`${DAY2}T00:00:00Z`), channelIDs: ['ch-a'] });
        expect(hours).toHaveLength(1);
        expect(hours[0]).toMatchObject({ startTime: new Date('2024-03-01T10:00:00Z'), requests: 3, completedWithErrors: 1, maxResponseTime: 100, totalResponseTime: 150 });
        const days = await again.metrics({ period: 'day', from: new Date(`${DAY1}T00:00:00Z`), to: new Date(`${DAY2}T00:00:00Z`) });
        expect(days.map((b) => [b.channelID, b.requests])).toEqual([['ch-a', 3], ['ch-b', 1]]);
        expect(await again.metrics({ period: 'day', from: new Date(`${DAY1}T00:00:00Z`), to: new Date(`${DAY2}T00:00:00Z`), channelIDs: [] })).toEqual([]);
        // The range is [from, to): a bucket starting at `to` is not in it.
        expect(await again.metrics({ period: 'hour', from: new Date(`${DAY1}T10:00:00Z`), to: new Date(`${DAY1}T11:00:00Z`) })).toHaveLength(1);
      });

      it('adds up many completions committed together into their buckets', async () => {
        const d = await dir();
        const log = await open(d);
        const docs = await Promise.all(
          Array.from({ length: 60 }, (_, i) => log.insert(tx(`${DAY1}T10:20:${String(i % 60).padStart(2, '0')}Z`, { status: 'Processing', response: undefined, channelID: i % 3 === 0 ? 'ch-b' : 'ch-a' }))),
        );
        await Promise.all(
          docs.map((doc, i) =>
            log.update(doc._id, { set: { status: i % 2 === 0 ? 'Successful' : 'Failed', response: { status: 200, headers: {}, timestamp: new Date(doc.request.timestamp.getTime() + 10 + i) } } }),
          ),
        );
        const minute = await log.metrics({ period: 'minute', from: new Date(`${DAY1}T10:20:00Z`), to: new Date(`${DAY1}T10:21:00Z`) });
        const byChannel = Object.fromEntries(minute.map((b) => [b.channelID, b]));
        expect(byChannel['ch-a']).toMatchObject({ requests: 40, successful: 20, failed: 20, minResponseTime: 11, maxResponseTime: 69 });
        expect(byChannel['ch-b']).toMatchObject({ requests: 20, successful: 10, failed: 10, minResponseTime: 10, maxResponseTime: 67 });
        const expectedTotal = docs.reduce((sum, _doc, i) => sum + 10 + i, 0);
        expect((byChannel['ch-a']?.totalResponseTime ?? 0) + (byChannel['ch-b']?.totalResponseTime ?? 0)).toBe(expectedTotal);
        expect((await log.finishedAfter(0, 100)).length).toBe(60);
      });

      it('cuts day buckets in the configured zone, and hour buckets on its hours', async () => {
        const log = await open(await dir(), { metricsTimeZone: 'Asia/Kolkata' });
        expect(log.metricsTimeZone).toBe('Asia/Kolkata');
        // 20:00 UTC on 1 March is 01:30 on 2 March in India (UTC+5:30).
        await log.insert(at(`${DAY1}T20:00:00Z`, 1, 'Successful'));
        const day = await log.metrics({ period: 'day', from: new Date(`${DAY1}T00:00:00Z`), to: new Date(`${DAY3}T00:00:00Z`) });
        expect(day.map((b) => [b.startTime.toISOString(), b.timeZone])).toEqual([['2024-03-01T18:30:00.000Z', 'Asia/Kolkata']]);
        const hour = await log.metrics({ period: 'hour', from: new Date(`${DAY1}T00:00:00Z`), to: new Date(`${DAY3}T00:00:00Z`) });
        expect(hour.map((b) => b.startTime.toISOString())).toEqual(['2024-03-01T19:30:00.000Z']);
      });

      it('lists finished transactions in commit order from a cursor, with what alerts read, and drops old entries', async () => {
        let clock = Date.parse(`${DAY2}T09:00:00Z`);
        const d = await dir();
        const log = await open(d, { now: () => clock });
        expect(await log.lastFinishedSeq()).toBe(0);
        const pending = await log.insert(tx(`${DAY1}T10:00:00Z`, { status: 'Processing', response: undefined, autoRetryAttempt: 2 }));
        await log.insert(at(`${DAY1}T10:00:01Z`, 3, 'Failed', { channelID: 'ch-b', autoRetry: true }));
        clock += 60_000;
        await log.update(pending._id, { set: { status: 'Failed', response: { status: 502, headers: {}, timestamp: new Date(`${DAY1}T10:00:02Z`) } } });
        const all = await log.finishedAfter(0, 10);
        expect(all.map((f) => [f.channelID, f.status, f.responseStatus, f.at.toISOString()])).toEqual([
          ['ch-b', 'Failed', 500, '2024-03-02T09:00:00.000Z'],
          ['ch-a', 'Failed', 502, '2024-03-02T09:01:00.000Z'],
        ]);
        expect(all[0]).toMatchObject({ autoRetry: true, requestTimestamp: new Date(`${DAY1}T10:00:01Z`) });
        expect(all[1]).toMatchObject({ id: pending._id, autoRetryAttempt: 2 });
        expect(all[1]!.seq).toBeGreaterThan(all[0]!.seq);
        expect(await log.lastFinishedSeq()).toBe(all[1]!.seq);
        expect(await log.finishedAfter(all[0]!.seq, 10)).toEqual([all[1]]);
        expect(await log.finishedAfter(0, 1)).toEqual([all[0]]);
        await expect(log.finishedAfter(0, 0)).rejects.toBeInstanceOf(StoreError);
        expect(await log.dropFinishedBefore(new Date(`${DAY2}T09:00:30Z`))).toBe(1);
        await log.close();
        const again = await open(d);
        expect(await again.finishedAfter(0, 10)).toEqual([all[1]]);
        // Sequence numbers never go back, even once older entries are gone.
        await again.insert(at(`${DAY1}T12:00:00Z`, 1, 'Successful'));
        expect((await again.finishedAfter(all[1]!.seq, 10)).map((f) => f.status)).toEqual(['Successful']);
      });

      it('counts transactions that start-up recovery finishes', async () => {
        const d = await dir();
        const crashed = await open(d);
        await crashed.insert(tx(`${DAY1}T10:00:00Z`, { status: 'Processing', response: undefined }));
        await crashed.close();
        const log = await open(d);
        expect(await log.failInterrupted()).toBe(1);
        expect((await log.finishedAfter(0, 10)).map((f) => f.status)).toEqual(['Failed']);
      });

      it('names a finished transaction again, flagged changed, when a later write changes what the search index reads (counted once)', async () => {
        const log = await open(await dir());
        const body = (name: string) => ({ path: `${DAY1}/ch-a/${name}`, size: 3, receivedBytes: 3, truncated: false });
        const answered = (name: string) => ({ status: 200, headers: { 'content-type': 'text/plain' }, timestamp: new Date(`${DAY1}T10:00:05Z`), body: body(name) });
        const done = await log.insert(tx(`${DAY1}T10:00:00Z`, { response: answered('r1') }));
        const pending = await log.insert(tx(`${DAY1}T10:00:01Z`, { status: 'Processing', response: undefined }));
        // Neither changes an indexed part of a finished transaction: no entry.
        await log.update(done._id, { set: { canRerun: false, autoRetry: true, status: 'Completed' } });
        await log.update(pending._id, { set: { response: answered('p0') } });
        // The completion: its one finished entry, not flagged.
        await log.update(pending._id, { set: { status: 'Successful', response: answered('p1') } });
        // A mediator's later response, a move to another channel, and a response taken away: named again each time.
        await log.update(done._id, { set: { response: answered('r2') } });
        await log.update(done._id, { set: { channelID: 'ch-b' } });
        await log.update(pending._id, { unset: ['response'] });
        const entries = await log.finishedAfter(0, 10);
        expect(entries.map((e) => [e.id, e.channelID, e.changed === true])).toEqual([
          [done._id, 'ch-a', false],
          [pending._id, 'ch-a', false],
          [done._id, 'ch-a', true],
          [done._id, 'ch-b', true],
          [pending._id, 'ch-a', true],
        ]);
        expect(await log.lastFinishedSeq()).toBe(entries[4]!.seq);
        const day = await log.metrics({ period: 'day', from: new Date(`${DAY1}T00:00:00Z`), to: new Date(`${DAY2}T00:00:00Z`) });
        expect(day.reduce((n, b) => n + b.requests, 0)).toBe(2);
      });

      it('drops minute buckets by age, and hour and day buckets with their days', async () => {
        const log = await open(await dir());
        await log.insert(at(`${DAY1}T10:00:00Z`, 1, 'Successful'));
        await log.insert(at(`${DAY2}T10:00:00Z`, 1, 'Successful'));
        const everything = { from: new Date(`${DAY1}T00:00:00Z`), to: new Date(`${DAY3}T00:00:00Z`) };
        expect(await log.dropMetricsBefore('minute', new Date(`${DAY2}T00:00:00Z`))).toBe(1);
        expect((await log.metrics({ period: 'minute', ...everything })).map((b) => b.startTime.toISOString())).toEqual(['2024-03-02T10:00:00.000Z']);
        expect(await log.metrics({ period: 'hour', ...everything })).toHaveLength(2);
        await log.dropDaysBefore(DAY2);
        expect((await log.metrics({ period: 'hour', ...everything })).map((b) => b.startTime.toISOString())).toEqual(['2024-03-02T10:00:00.000Z']);
        expect((await log.metrics({ period: 'day', ...everything })).map((b) => b.startTime.toISOString())).toEqual(['2024-03-02T00:00:00.000Z']);
      });
    });
  });
}
