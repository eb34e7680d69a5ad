/**
 * The storage contract: every `Store` implementation (NeDB today, PostgreSQL later) must pass this suite, which uses
 * the interfaces of service/storage/store.ts only.
 *
 * Usage: `describeStoreContract('NeDB', openFixture)` from a `*.test.ts` file, where `openFixture` follows
 * `OpenStoreFixture` below.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelAuditRecord, SessionRecord, UserRecord } from '../../service/storage/records.js';
import { StoreError, UniqueConstraintError } from '../../service/storage/store.js';
import type { Collection, Filter, FindOptions, NewDoc, Store } from '../../service/storage/store.js';

/** One store under test. */
export interface StoreFixture {
  /** A store that has NOT been opened yet: the suite calls `open()` itself. */
  store: Store;
  /** Where the data lives (a folder, a database schema, ...); pass it back to the factory to reopen the same data. */
  location: string;
  /** Closes the store if it is open and deletes the data at `location`. Must tolerate data that is already gone. */
  cleanup: () => Promise<void>;
}

/**
 * Creates a store object. Without `location` it prepares a new, empty location; with one it returns a second,
 * independent store object over the data already there (the suite closes the first store before opening it).
 */
export type OpenStoreFixture = (location?: string) => Promise<StoreFixture>;

const day = (iso: string): Date => new Date(`${iso}T00:00:00.000Z`);

/** A complete user; `overrides` win. */
export function newUser(overrides: Partial<NewDoc<UserRecord>> = {}): NewDoc<UserRecord> {
  return {
    email: 'someone@example.org',
    firstname: 'Some',
    surname: 'One',
    groups: [],
    dailyReport: false,
    weeklyReport: false,
    settings: {},
    passwordHash: 'scrypt$hash',
    passwordChangeRequired: false,
    createdAt: day('2024-01-01'),
    updatedAt: day('2024-01-01'),
    ...overrides,
  };
}

function newSession(overrides: Partial<NewDoc<SessionRecord>> = {}): NewDoc<SessionRecord> {
  return {
    tokenHash: 'token-hash',
    userId: 'user-1',
    createdAt: day('2024-05-01'),
    lastSeenAt: day('2024-05-01'),
    expiresAt: day('2024-05-02'),
    address: '127.0.0.1',
    ...overrides,
  };
}

/** A channel change record: a document with a date and an array of sub-documents (one op per changed path). */
function newChannelAudit(when: Date, paths: string[]): NewDoc<ChannelAuditRecord> {
  return {
    ref: 'channel-1',
    ops: paths.map((path) => ({ op: 'replace', path, value: 1 })),
    date: when,
    updatedBy: { name: 'root' },
  };
}

/** The four users most query tests run against. */
const people = {
  alice: newUser({
    email: 'alice@example.org', firstname: 'Alice', surname: 'Smith', groups: ['admin', 'ops'], msisdn: '111',
    dailyReport: true, settings: { list: { pageSize: 10 } }, createdAt: day('2024-01-01'),
  }),
  bob: newUser({
    email: 'bob@example.org', firstname: 'Bob', surname: 'Jones', groups: ['ops'],
    dailyReport: false, settings: { list: { pageSize: 20 } }, createdAt: day('2024-02-01'),
  }),
  carol: newUser({
    email: 'carol@example.org', firstname: 'Carol', surname: 'Smith', groups: [], msisdn: '333',
    dailyReport: true, settings: {}, createdAt: day('2024-03-01'),
  }),
  dave: newUser({
    email: 'dave@example.org', firstname: 'Dave', surname: 'Brown', groups: ['viewer'], msisdn: '444',
    dailyReport: false, passwordHash: null, settings: { list: { pageSize: 5 } }, createdAt: day('2024-04-01'),
  }),
};

/** Registers the whole contract suite for one implementation. */
export function describeStoreContract(label: string, open: OpenStoreFixture): void {
  describe(`storage contract: ${label}`, () => {
    let fixtures: StoreFixture[] = [];
    let store: Store;

    async function fixture(location?: string): Promise<StoreFixture> {
      const created = await open(location);
      fixtures.push(created);
      return created;
    }

    /** Closes the current store and opens a new store object over the same data. */
    async function reopen(): Promise<Store> {
      const location = fixtures[0]?.location;
      await store.close();
      const again = await fixture(location);
      await again.store.open();
      store = again.store;
      return store;
    }

    beforeEach(async () => {
      fixtures = [];
      store = (await fixture()).store;
      await store.open();
    });

    afterEach(async () => {
      for (const created of fixtures.reverse()) await created.cleanup();
    });

    async function insertPeople(): Promise<Record<keyof typeof people, UserRecord>> {
      return {
        alice: await store.users.insert(people.alice),
        bob: await store.users.insert(people.bob),
        carol: await store.users.insert(people.carol),
        dave: await store.users.insert(people.dave),
      };
    }

    /** First names of the users matching `filter`, sorted unless `options` give an order. */
    async function names(filter: Filter, options?: FindOptions): Promise<string[]> {
      const found = (await store.users.find(filter, options)).map((u) => u.firstname);
      return options?.sort === undefined ? found.sort() : found;
    }

    describe('lifecycle', () => {
      it('reports its engine and a ready state without problems once open', () => {
        expect(store.health()).toEqual({ engine: expect.stringMatching(/^[a-z]+$/) as unknown, state: 'ready', problems: [] });
      });

      it('is closed before open() and after close()', async () => {
        const other = (await fixture()).store;
        expect(other.health().state).toBe('closed');
        await other.open();
        expect(other.health().state).toBe('ready');
        await other.close();
        expect(other.health().state).toBe('closed');
      });

      it('accepts open() on an open store and close() twice', async () => {
        await store.open();
        await store.users.insert(newUser());
        await store.close();
        await store.close();
        expect(store.health().state).toBe('closed');
      });

      it('rejects every operation after close() with a StoreError', async () => {
        const user = await store.users.insert(newUser());
        await store.close();
        const operations: (() => Promise<unknown>)[] = [
          () => store.users.insert(newUser({ email: 'late@example.org' })),
          () => store.users.findById(user._id),
          () => store.users.findOne({}),
          () => store.users.find({}),
          () => store.users.count({}),
          () => store.users.updateById(user._id, { set: { firstname: 'Late' } }),
          () => store.users.updateMany({}, { set: { firstname: 'Late' } }),
          () => store.users.removeById(user._id),
          () => store.users.removeMany({}),
        ];
        for (const operation of operations) await expect(operation()).rejects.toBeInstanceOf(StoreError);
      });

      it('rejects operations before open() with a StoreError', async () => {
        const other = (await fixture()).store;
        await expect(other.users.find({})).rejects.toBeInstanceOf(StoreError);
        await expect(other.users.insert(newUser())).rejects.toBeInstanceOf(StoreError);
      });

      it('keeps inserts, updates and removals across close and reopen', async () => {
        const { alice, bob, carol } = await insertPeople();
        await store.users.updateById(alice._id, { set: { firstname: 'Alicia', updatedAt: day('2024-06-01') }, unset: ['msisdn'] });
        await store.users.removeById(bob._id);
        await store.channelAudits.insert(newChannelAudit(day('2024-05-05'), ['/name']));

        await reopen();

        expect(await store.users.count({})).toBe(3);
        expect(await store.users.findById(bob._id)).toBeNull();
        const reloaded = await store.users.findById(alice._id);
        expect(reloaded).toEqual({ ...alice, firstname: 'Alicia', updatedAt: day('2024-06-01'), msisdn: undefined });
        expect(reloaded && 'msisdn' in reloaded).toBe(false);
        expect(reloaded?.createdAt).toBeInstanceOf(Date);
        expect(await store.users.findById(carol._id)).toEqual(carol);
        const [change] = await store.channelAudits.find({});
        expect(change?.date).toBeInstanceOf(Date);
        expect(change?.date.getTime()).toBe(day('2024-05-05').getTime());
      });

      it('still enforces unique fields and serves queries after reopening', async () => {
        await insertPeople();
        await reopen();
        await expect(store.users.insert(newUser({ email: 'alice@example.org' }))).rejects.toBeInstanceOf(UniqueConstraintError);
        expect(await names({ surname: 'Smith' })).toEqual(['Alice', 'Carol']);
      });
    });

    describe('insert', () => {
      it('assigns an OpenHIM-shaped _id (24 hex digits, epoch seconds first) and returns the document as stored', async () => {
        const input = newUser({ email: 'new@example.org', msisdn: '123' });
        const before = Math.floor(Date.now() / 1000);
        const stored = await store.users.insert(input);
        expect(stored._id).toMatch(/^[0-9a-f]{24}$/);
        const seconds = Number.parseInt(stored._id.slice(0, 8), 16);
        expect(seconds).toBeGreaterThanOrEqual(before);
        expect(seconds).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
        expect(stored).toEqual({ ...input, _id: stored._id });
        expect(await store.users.findById(stored._id)).toEqual(stored);
      });

      it('assigns a different _id to every document', async () => {
        const ids = new Set<string>();
        for (let i = 0; i < 20; i += 1) ids.add((await store.users.insert(newUser({ email: `u${i}@example.org` })))._id);
        expect(ids.size).toBe(20);
      });

      it('keeps a supplied _id', async () => {
        const stored = await store.users.insert(newUser({ _id: 'chosen-id' }));
        expect(stored._id).toBe('chosen-id');
        expect((await store.users.findById('chosen-id'))?.email).toBe('someone@example.org');
      });

      it('rejects a duplicate _id with UniqueConstraintError', async () => {
        await store.users.insert(newUser({ _id: 'same', email: 'one@example.org' }));
        const err = await store.users.insert(newUser({ _id: 'same', email: 'two@example.org' })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UniqueConstraintError);
        expect((err as UniqueConstraintError).field).toBe('_id');
        expect(await store.users.count({})).toBe(1);
      });

      it('does not store fields whose value is undefined', async () => {
        const stored = await store.users.insert(newUser({ msisdn: undefined }));
        expect('msisdn' in stored).toBe(false);
        const found = await store.users.findById(stored._id);
        expect(found && 'msisdn' in found).toBe(false);
      });
    });

    describe('find, findOne, findById, count', () => {
      it('returns null for an unknown id and for no match', async () => {
        await insertPeople();
        expect(await store.users.findById('no-such-id')).toBeNull();
        expect(await store.users.findOne({ email: 'nobody@example.org' })).toBeNull();
        expect(await store.users.find({ email: 'nobody@example.org' })).toEqual([]);
      });

      it('finds one document by a field', async () => {
        const { bob } = await insertPeople();
        expect(await store.users.findOne({ email: 'bob@example.org' })).toEqual(bob);
      });

      it('returns everything for an empty filter', async () => {
        await insertPeople();
        expect(await names({})).toEqual(['Alice', 'Bob', 'Carol', 'Dave']);
      });

      it('matches strings, booleans, null and Dates by equality', async () => {
        await insertPeople();
        expect(await names({ surname: 'Smith' })).toEqual(['Alice', 'Carol']);
        expect(await names({ dailyReport: false })).toEqual(['Bob', 'Dave']);
        expect(await names({ passwordHash: null })).toEqual(['Dave']);
        expect(await names({ createdAt: day('2024-02-01') })).toEqual(['Bob']);
        expect(await names({ surname: 'Smith', dailyReport: true, msisdn: '333' })).toEqual(['Carol']);
      });

      it('matches an array field that contains the value', async () => {
        await insertPeople();
        expect(await names({ groups: 'ops' })).toEqual(['Alice', 'Bob']);
        expect(await names({ groups: 'nobody' })).toEqual([]);
      });

      it('follows dotted paths, into arrays of sub-documents too', async () => {
        await insertPeople();
        expect(await names({ 'settings.list.pageSize': 20 })).toEqual(['Bob']);
        await store.channelAudits.insert(newChannelAudit(day('2024-05-01'), ['/name', '/urlPattern']));
        await store.channelAudits.insert(newChannelAudit(day('2024-05-02'), ['/status']));
        expect(await store.channelAudits.count({ 'ops.path': '/urlPattern' })).toBe(1);
        expect(await store.channelAudits.count({ 'ops.path': { $in: ['/status', '/name'] } })).toBe(2);
        expect(await store.channelAudits.count({ 'updatedBy.name': 'root', date: { $gte: day('2024-05-02') } })).toBe(1);
      });

      it('supports $in and $nin, on scalar and array fields', async () => {
        await insertPeople();
        expect(await names({ firstname: { $in: ['Alice', 'Dave', 'Zed'] } })).toEqual(['Alice', 'Dave']);
        expect(await names({ firstname: { $in: [] } })).toEqual([]);
        expect(await names({ createdAt: { $in: [day('2024-01-01'), day('2024-03-01')] } })).toEqual(['Alice', 'Carol']);
        expect(await names({ groups: { $in: ['viewer', 'admin'] } })).toEqual(['Alice', 'Dave']);
        expect(await names({ firstname: { $nin: ['Alice', 'Bob'] } })).toEqual(['Carol', 'Dave']);
        // On an array field $nin means "contains none of them".
        expect(await names({ groups: { $nin: ['ops'] } })).toEqual(['Carol', 'Dave']);
        // A missing field is not in any list.
        expect(await names({ msisdn: { $nin: ['111', '333'] } })).toEqual(['Bob', 'Dave']);
      });

      it('supports $ne, on scalar, array and missing fields', async () => {
        await insertPeople();
        expect(await names({ surname: { $ne: 'Smith' } })).toEqual(['Bob', 'Dave']);
        // On an array field $ne means "does not contain".
        expect(await names({ groups: { $ne: 'ops' } })).toEqual(['Carol', 'Dave']);
        expect(await names({ msisdn: { $ne: '111' } })).toEqual(['Bob', 'Carol', 'Dave']);
      });

      it('supports $gt, $gte, $lt and $lte on Dates, numbers and strings', async () => {
        await insertPeople();
        expect(await names({ createdAt: { $gt: day('2024-02-01') } })).toEqual(['Carol', 'Dave']);
        expect(await names({ createdAt: { $gte: day('2024-02-01') } })).toEqual(['Bob', 'Carol', 'Dave']);
        expect(await names({ createdAt: { $lt: day('2024-03-01') } })).toEqual(['Alice', 'Bob']);
        expect(await names({ createdAt: { $lte: day('2024-03-01') } })).toEqual(['Alice', 'Bob', 'Carol']);
        expect(await names({ createdAt: { $gte: day('2024-02-01'), $lt: day('2024-04-01') } })).toEqual(['Bob', 'Carol']);
        expect(await names({ 'settings.list.pageSize': { $gt: 5, $lte: 20 } })).toEqual(['Alice', 'Bob']);
        expect(await names({ firstname: { $gte: 'C' } })).toEqual(['Carol', 'Dave']);
      });

      it('supports $exists, including on empty arrays and dotted paths', async () => {
        await insertPeople();
        expect(await names({ msisdn: { $exists: false } })).toEqual(['Bob']);
        expect(await names({ msisdn: { $exists: true } })).toEqual(['Alice', 'Carol', 'Dave']);
        expect(await names({ groups: { $exists: true } })).toEqual(['Alice', 'Bob', 'Carol', 'Dave']);
        expect(await names({ groups: { $exists: false } })).toEqual([]);
        expect(await names({ 'settings.list': { $exists: true } })).toEqual(['Alice', 'Bob', 'Dave']);
        expect(await names({ 'settings.list': { $exists: false } })).toEqual(['Carol']);
      });

      it('supports $or, alone, beside fields and nested', async () => {
        await insertPeople();
        expect(await names({ $or: [{ firstname: 'Alice' }, { groups: 'viewer' }] })).toEqual(['Alice', 'Dave']);
        expect(await names({ surname: 'Smith', $or: [{ firstname: 'Carol' }, { dailyReport: false }] })).toEqual(['Carol']);
        expect(
          await names({ $or: [{ $or: [{ firstname: 'Bob' }, { firstname: 'Carol' }] }, { createdAt: { $gt: day('2024-03-15') } }] }),
        ).toEqual(['Bob', 'Carol', 'Dave']);
      });

      it('ignores fields whose condition is undefined', async () => {
        await insertPeople();
        expect(await names({ surname: 'Smith', msisdn: undefined })).toEqual(['Alice', 'Carol']);
      });

      it('counts matching documents', async () => {
        await insertPeople();
        expect(await store.users.count({})).toBe(4);
        expect(await store.users.count({ groups: 'ops' })).toBe(2);
        expect(await store.users.count({ $or: [{ surname: 'Brown' }, { surname: 'Jones' }] })).toBe(2);
        expect(await store.users.count({ email: 'nobody@example.org' })).toBe(0);
      });

      it('sorts by several keys, ascending and descending', async () => {
        await insertPeople();
        expect(await names({}, { sort: { surname: 1, firstname: -1 } })).toEqual(['Dave', 'Bob', 'Carol', 'Alice']);
        expect(await names({}, { sort: { surname: -1, firstname: 1 } })).toEqual(['Alice', 'Carol', 'Bob', 'Dave']);
        expect(await names({}, { sort: { createdAt: -1 } })).toEqual(['Dave', 'Carol', 'Bob', 'Alice']);
        expect(await names({ 'settings.list.pageSize': { $exists: true } }, { sort: { 'settings.list.pageSize': 1 } })).toEqual([
          'Dave',
          'Alice',
          'Bob',
        ]);
      });

      it('skips and limits after sorting', async () => {
        await insertPeople();
        const byDate = { createdAt: 1 } as const;
        expect(await names({}, { sort: byDate, skip: 1, limit: 2 })).toEqual(['Bob', 'Carol']);
        expect(await names({}, { sort: byDate, limit: 1 })).toEqual(['Alice']);
        expect(await names({}, { sort: byDate, skip: 3 })).toEqual(['Dave']);
        expect(await names({}, { sort: byDate, skip: 10 })).toEqual([]);
        expect(await names({}, { sort: byDate, limit: 0 })).toEqual([]);
        expect(await names({ groups: 'ops' }, { sort: { createdAt: -1 }, limit: 1 })).toEqual(['Bob']);
      });

      it('rejects a bad sort direction, skip or limit with a StoreError', async () => {
        await insertPeople();
        const bad = [{ sort: { firstname: 0 } }, { skip: -1 }, { limit: 1.5 }] as unknown as FindOptions[];
        for (const options of bad) await expect(store.users.find({}, options)).rejects.toBeInstanceOf(StoreError);
      });
    });

    describe('query language guard', () => {
      it('rejects unknown operators with a StoreError and never runs them', async () => {
        await insertPeople();
        let ran = false;
        const where = function (): boolean {
          ran = true;
          return true;
        };
        const bad = [
          { $where: where },
          { $or: [{ $where: where }] },
          { firstname: { $where: where } },
          { firstname: where },
          { firstname: { $regex: /A/ } },
          { firstname: /A/ },
          { $and: [{ firstname: 'Alice' }] },
          { $not: { firstname: 'Alice' } },
          { firstname: { $not: { $eq: 'Alice' } } },
          { groups: { $size: 2 } },
          { groups: { $elemMatch: { $eq: 'ops' } } },
          { firstname: { $in: 'Alice' } },
          { firstname: { $exists: 1 } },
          { firstname: { $gt: 'A', $foo: 1 } },
          { settings: { list: { pageSize: 10 } } },
          { groups: ['admin', 'ops'] },
        ] as unknown as Filter[];
        for (const filter of bad) {
          await expect(store.users.find(filter), JSON.stringify(filter)).rejects.toBeInstanceOf(StoreError);
          await expect(store.users.findOne(filter)).rejects.toBeInstanceOf(StoreError);
          await expect(store.users.count(filter)).rejects.toBeInstanceOf(StoreError);
          await expect(store.users.updateMany(filter, { set: { firstname: 'Hacked' } })).rejects.toBeInstanceOf(StoreError);
          await expect(store.users.removeMany(filter)).rejects.toBeInstanceOf(StoreError);
        }
        expect(ran).toBe(false);
        expect(await names({})).toEqual(['Alice', 'Bob', 'Carol', 'Dave']);
      });
    });

    describe('updates', () => {
      it('updateById sets fields and returns the updated document', async () => {
        const { alice } = await insertPeople();
        const updated = await store.users.updateById(alice._id, {
          set: { firstname: 'Alicia', groups: ['ops'], settings: { theme: 'dark' }, passwordChangedAt: day('2024-07-01') },
        });
        const expected = { ...alice, firstname: 'Alicia', groups: ['ops'], settings: { theme: 'dark' }, passwordChangedAt: day('2024-07-01') };
        expect(updated).toEqual(expected);
        expect(updated?.passwordChangedAt).toBeInstanceOf(Date);
        expect(await store.users.findById(alice._id)).toEqual(expected);
      });

      it('updateById unsets fields, alone or with set', async () => {
        const { alice, carol } = await insertPeople();
        const updated = await store.users.updateById(alice._id, { unset: ['msisdn'] });
        expect(updated && 'msisdn' in updated).toBe(false);
        const stored = await store.users.findById(alice._id);
        expect(stored && 'msisdn' in stored).toBe(false);
        expect(stored?.email).toBe(alice.email);

        const both = await store.users.updateById(carol._id, { set: { surname: 'Jones' }, unset: ['msisdn'] });
        expect(both?.surname).toBe('Jones');
        expect(both && 'msisdn' in both).toBe(false);
      });

      it('updateById returns null for an unknown id and changes nothing', async () => {
        await insertPeople();
        expect(await store.users.updateById('no-such-id', { set: { firstname: 'Ghost' } })).toBeNull();
        expect(await store.users.count({ firstname: 'Ghost' })).toBe(0);
        expect(await store.users.count({})).toBe(4);
      });

      it('updateById with empty changes leaves the document as it was', async () => {
        const { bob } = await insertPeople();
        expect(await store.users.updateById(bob._id, {})).toEqual(bob);
        expect(await store.users.findById(bob._id)).toEqual(bob);
      });

      it('updateMany changes every match and returns how many', async () => {
        const { alice, carol, bob } = await insertPeople();
        expect(await store.users.updateMany({ surname: 'Smith' }, { set: { weeklyReport: true } })).toBe(2);
        expect((await store.users.findById(alice._id))?.weeklyReport).toBe(true);
        expect((await store.users.findById(carol._id))?.weeklyReport).toBe(true);
        expect((await store.users.findById(bob._id))?.weeklyReport).toBe(false);
        expect(await store.users.updateMany({ surname: 'Nobody' }, { set: { weeklyReport: true } })).toBe(0);
        expect(await store.users.updateMany({}, { unset: ['msisdn'] })).toBe(4);
        expect(await store.users.count({ msisdn: { $exists: true } })).toBe(0);
      });

      it('rejects changes to _id with a StoreError', async () => {
        const { alice } = await insertPeople();
        const changes = { set: { _id: 'other' } } as never;
        await expect(store.users.updateById(alice._id, changes)).rejects.toBeInstanceOf(StoreError);
        expect(await store.users.findById(alice._id)).toEqual(alice);
      });
    });

    describe('removal', () => {
      it('removeById reports whether a document was removed', async () => {
        const { bob } = await insertPeople();
        expect(await store.users.removeById(bob._id)).toBe(true);
        expect(await store.users.findById(bob._id)).toBeNull();
        expect(await store.users.removeById(bob._id)).toBe(false);
        expect(await store.users.count({})).toBe(3);
      });

      it('removeMany removes every match and returns how many', async () => {
        await insertPeople();
        expect(await store.users.removeMany({ surname: 'Smith' })).toBe(2);
        expect(await names({})).toEqual(['Bob', 'Dave']);
        expect(await store.users.removeMany({ surname: 'Smith' })).toBe(0);
        expect(await store.users.removeMany({})).toBe(2);
        expect(await store.users.count({})).toBe(0);
      });
    });

    describe('Dates', () => {
      it('come back as Date instances with the same time, top-level and nested', async () => {
        const createdAt = new Date('2024-02-29T12:34:56.789Z');
        const user = await store.users.insert(newUser({ createdAt }));
        expect(user.createdAt).toBeInstanceOf(Date);
        expect(user.createdAt.getTime()).toBe(createdAt.getTime());
        for (const found of [await store.users.findById(user._id), (await store.users.find({}))[0], await store.users.findOne({ createdAt })]) {
          expect(found?.createdAt).toBeInstanceOf(Date);
          expect(found?.createdAt.getTime()).toBe(createdAt.getTime());
        }
        const change = await store.channelAudits.insert(newChannelAudit(createdAt, ['/x']));
        const found = await store.channelAudits.findById(change._id);
        expect(found?.date).toBeInstanceOf(Date);
        expect(found?.date.getTime()).toBe(createdAt.getTime());
      });
    });

    describe('unique fields', () => {
      it('insert rejects a duplicate email with UniqueConstraintError and stores nothing', async () => {
        const { alice } = await insertPeople();
        const err = await store.users.insert(newUser({ email: 'alice@example.org', firstname: 'Impostor' })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UniqueConstraintError);
        expect(err).toBeInstanceOf(StoreError);
        expect((err as UniqueConstraintError).field).toBe('email');
        expect((err as UniqueConstraintError).collection).toBe('users');
        expect(await store.users.count({})).toBe(4);
        expect(await store.users.count({ firstname: 'Impostor' })).toBe(0);
        expect(await store.users.findById(alice._id)).toEqual(alice);
        expect(store.health().problems).toEqual([]);
      });

      it('updateById rejects a change that would duplicate an email and changes nothing', async () => {
        const { alice, bob } = await insertPeople();
        const err = await store.users.updateById(bob._id, { set: { email: 'alice@example.org', firstname: 'Changed' }, unset: ['groups'] })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UniqueConstraintError);
        expect((err as UniqueConstraintError).field).toBe('email');
        expect(await store.users.findById(bob._id)).toEqual(bob);
        expect(await store.users.findById(alice._id)).toEqual(alice);
      });

      it('updateMany rejects a change that would duplicate an email and changes none of the matches', async () => {
        const before = await insertPeople();
        const err = await store.users.updateMany({ surname: 'Smith' }, { set: { email: 'shared@example.org', firstname: 'Changed' } })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UniqueConstraintError);
        expect((err as UniqueConstraintError).field).toBe('email');
        for (const user of Object.values(before)) expect(await store.users.findById(user._id)).toEqual(user);
      });

      it('allows setting a document\'s unique field to its own value or a free one', async () => {
        const { alice } = await insertPeople();
        expect((await store.users.updateById(alice._id, { set: { email: 'alice@example.org' } }))?.email).toBe('alice@example.org');
        expect((await store.users.updateById(alice._id, { set: { email: 'alice2@example.org' } }))?.email).toBe('alice2@example.org');
        await store.users.insert(newUser({ email: 'alice@example.org' }));
        expect(await store.users.count({})).toBe(5);
      });

      it('enforces sessions.tokenHash too', async () => {
        await store.sessions.insert(newSession({ tokenHash: 'abc' }));
        const err = await store.sessions.insert(newSession({ tokenHash: 'abc' })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UniqueConstraintError);
        expect((err as UniqueConstraintError).field).toBe('tokenHash');
        expect((err as UniqueConstraintError).collection).toBe('sessions');
      });

      it('a removed document frees its unique value', async () => {
        const { alice } = await insertPeople();
        await store.users.removeById(alice._id);
        await expect(store.users.insert(newUser({ email: 'alice@example.org' }))).resolves.toMatchObject({ email: 'alice@example.org' });
      });
    });

    describe('returned objects are copies', () => {
      function vandalize(user: UserRecord): void {
        user.firstname = 'Vandal';
        user.groups.push('vandals');
        user.settings.vandal = true;
        user.createdAt.setTime(0);
      }

      it('mutating what insert, find, findOne, findById or updateById returned changes nothing stored', async () => {
        const { alice } = await insertPeople();
        const snapshot = structuredClone(alice);
        vandalize(alice);
        for (const found of await store.users.find({ _id: snapshot._id })) vandalize(found);
        const one = await store.users.findOne({ email: snapshot.email });
        if (one) vandalize(one);
        const byId = await store.users.findById(snapshot._id);
        if (byId) vandalize(byId);
        const updated = await store.users.updateById(snapshot._id, { set: { surname: snapshot.surname } });
        if (updated) vandalize(updated);
        expect(await store.users.findById(snapshot._id)).toEqual(snapshot);
      });

      it('mutating what was passed to insert or updateById afterwards changes nothing stored', async () => {
        const input = newUser({ groups: ['a'], settings: { nested: { value: 1 } }, createdAt: day('2024-01-01') });
        const stored = await store.users.insert(input);
        const snapshot = structuredClone(stored);
        input.groups.push('b');
        (input.settings.nested as { value: number }).value = 2;
        input.createdAt.setTime(0);
        const set = { groups: ['x'], updatedAt: day('2024-02-02') };
        await store.users.updateById(stored._id, { set });
        set.groups.push('y');
        set.updatedAt.setTime(0);
        expect(await store.users.findById(stored._id)).toEqual({ ...snapshot, groups: ['x'], updatedAt: day('2024-02-02') });
      });
    });

    describe('collections are independent', () => {
      it('each collection sees only its own documents', async () => {
        await insertPeople();
        await store.sessions.insert(newSession());
        expect(await store.sessions.count({})).toBe(1);
        expect(await store.channelAudits.count({})).toBe(0);
        expect(store.users.name).toBe('users');
        expect(store.sessions.name).toBe('sessions');
        expect(store.channelAudits.name).toBe('channelAudits');
        const sessions: Collection<SessionRecord> = store.sessions;
        expect(await sessions.find({ expiresAt: { $gt: day('2024-05-01') } })).toHaveLength(1);
      });

      it('has the task and auto-retry collections, which survive a reopen', async () => {
        expect([store.tasks.name, store.taskTransactions.name, store.autoRetries.name]).toEqual(['tasks', 'taskTransactions', 'autoRetries']);
        const created = day('2024-06-01');
        await store.tasks.insert({ _id: 'task-1', status: 'Processing', batchSize: 2, totalTransactions: 1, remainingTransactions: 1, user: 'a@example.org', created });
        await store.taskTransactions.insert({ _id: 'task-1-0', taskID: 'task-1', index: 0, tid: 'tx-1', tstatus: 'Processing', rerunID: 'tx-2' });
        await store.autoRetries.insert({ _id: 'tx-3', queuedAt: created, childID: 'tx-4' });
        await expect(store.autoRetries.insert({ _id: 'tx-3', queuedAt: created })).rejects.toBeInstanceOf(UniqueConstraintError);
        const again = await reopen();
        expect(await again.tasks.findById('task-1')).toMatchObject({ status: 'Processing', created });
        expect(await again.taskTransactions.find({ taskID: 'task-1', tstatus: 'Processing' })).toMatchObject([{ rerunID: 'tx-2' }]);
        expect(await again.autoRetries.findById('tx-3')).toEqual({ _id: 'tx-3', queuedAt: created, childID: 'tx-4' });
        expect(await again.users.count({})).toBe(0);
      });
    });
  });
}
