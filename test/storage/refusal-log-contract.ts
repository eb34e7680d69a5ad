/**
 * The refusal log contract (issue 35): what the refusal recorder and `GET /refusals` can observe of a `RefusalLog`,
 * which every engine must show: adds that fold into a stored row, paging newest first, the filters, the counts per
 * channel, and retention.
 *
 * Usage: `describeRefusalLogContract('SQLite', openFixture)` from a `*.test.ts` file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RefusalLog, RefusalRow } from '../../service/storage/refusals.js';

export interface RefusalLogFixture {
  /** A log that has NOT been opened yet. */
  log: RefusalLog;
  /** Where the data lives; pass it back to the factory to reopen the same log. */
  location: string;
  cleanup: () => Promise<void>;
}

export type OpenRefusalLogFixture = (location?: string) => Promise<RefusalLogFixture>;

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 11, 3, 8, 0, 0);
const CH1 = 'aaaaaaaaaaaaaaaaaaaaaaa1';
const CH2 = 'aaaaaaaaaaaaaaaaaaaaaaa2';

function row(overrides: Partial<RefusalRow> = {}): RefusalRow {
  return {
    minute: T0,
    first: T0 + 1000,
    last: T0 + 2000,
    reason: 'not_allowed',
    listener: 'channel:Lab',
    port: 2575,
    channelId: CH1,
    channelName: 'Lab',
    address: '10.0.0.5',
    client: null,
    count: 1,
    detail: 'address 10.0.0.5 may not use channel Lab',
    ...overrides,
  };
}

export function describeRefusalLogContract(engine: string, openFixture: OpenRefusalLogFixture): void {
  describe(`refusal log contract: ${engine}`, () => {
    const fixtures: RefusalLogFixture[] = [];

    afterEach(async () => {
      for (const f of fixtures) await f.log.close();
      for (const f of fixtures.splice(0)) await f.cleanup();
    });

    async function open(location?: string): Promise<RefusalLogFixture> {
      const fixture = await openFixture(location);
      fixtures.push(fixture);
      await fixture.log.open();
      return fixture;
    }

    it('folds rows of one key into one: counts add, times widen, the first detail stays; the rows survive a reopen', async () => {
      const { log, location } = await open();
      await log.add([row({ count: 3, first: T0 + 5000, last: T0 + 9000 })]);
      await log.add([row({ count: 2, first: T0 + 1000, last: T0 + 30_000, detail: 'another', client: 'lab-client' }), row({ count: 4, first: T0 + 2000, last: T0 + 3000 })]);
      await log.close();
      const reopened = (await open(location)).log;
      const { items, total, refused } = await reopened.page({}, { limit: 10, skip: 0 });
      expect(total).toBe(1);
      expect(refused).toBe(9);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ count: 9, first: T0 + 1000, last: T0 + 30_000, detail: 'address 10.0.0.5 may not use channel Lab', client: 'lab-client', reason: 'not_allowed', channelId: CH1, channelName: 'Lab', port: 2575, minute: T0 });
      expect(typeof items[0]?.id).toBe('string');
    });

    it('keeps apart rows of another minute, address, reason, listener or channel, and rows without a channel', async () => {
      const { log } = await open();
      await log.add([
        row(),
        row({ minute: T0 + MINUTE, first: T0 + MINUTE, last: T0 + MINUTE }),
        row({ address: '10.0.0.6' }),
        row({ reason: 'throttled' }),
        row({ listener: 'http', port: 5001 }),
        row({ channelId: CH2, channelName: 'Other' }),
        row({ channelId: '', channelName: '', listener: 'http', reason: 'no_channel', port: null }),
      ]);
      const { items, total } = await log.page({}, { limit: 100, skip: 0 });
      expect(total).toBe(7);
      expect(items.find((r) => r.reason === 'no_channel')).toMatchObject({ channelId: '', channelName: '', port: null });
    });

    it('pages newest last refusal first, and counts every match', async () => {
      const { log } = await open();
      const rows = Array.from({ length: 25 }, (_, i) => row({ minute: T0 + i * MINUTE, first: T0 + i * MINUTE, last: T0 + i * MINUTE + 10 }));
      await log.add(rows);
      const first = await log.page({}, { limit: 10, skip: 0 });
      const third = await log.page({}, { limit: 10, skip: 20 });
      expect(first.total).toBe(25);
      expect(first.items.map((r) => r.minute)).toEqual(Array.from({ length: 10 }, (_, i) => T0 + (24 - i) * MINUTE));
      expect(third.items.map((r) => r.minute)).toEqual(Array.from({ length: 5 }, (_, i) => T0 + (4 - i) * MINUTE));
      expect((await log.page({}, { limit: 0, skip: 0 })).items).toHaveLength(25);
    });

    it('filters by time, channel, reason and address, combined', async () => {
      const { log } = await open();
      await log.add([
        row({ minute: T0, first: T0, last: T0 + 10 }),
        row({ minute: T0 + 10 * MINUTE, first: T0 + 10 * MINUTE, last: T0 + 10 * MINUTE + 10, reason: 'throttled' }),
        row({ minute: T0 + 20 * MINUTE, first: T0 + 20 * MINUTE, last: T0 + 20 * MINUTE + 10, channelId: CH2, channelName: 'Other', address: '192.0.2.1' }),
        row({ minute: T0 + 30 * MINUTE, first: T0 + 30 * MINUTE, last: T0 + 30 * MINUTE, channelId: '', channelName: '', listener: 'http', reason: 'no_channel' }),
      ]);
      const count = async (filter: Parameters<RefusalLog['page']>[0]) => (await log.page(filter, { limit: 100, skip: 0 })).total;
      expect(await count({ from: T0 + 5 * MINUTE })).toBe(3);
      expect(await count({ to: T0 + 15 * MINUTE })).toBe(2);
      expect(await count({ from: T0 + 5 * MINUTE, to: T0 + 25 * MINUTE })).toBe(2);
      expect(await count({ channelIds: [CH1] })).toBe(2);
      expect(await count({ channelIds: [CH1, CH2] })).toBe(3);
      // A user who may view no channel sees nothing, not the rows without a channel.
      expect(await count({ channelIds: [] })).toBe(0);
      expect(await count({ reasons: ['throttled', 'no_channel'] })).toBe(2);
      expect(await count({ reasons: [] })).toBe(0);
      expect(await count({ address: '192.0.2.1' })).toBe(1);
      expect(await count({ channelIds: [CH1], reasons: ['not_allowed'], from: T0 - MINUTE })).toBe(1);
    });

    it('counts refusals per channel over a span of minutes, leaving out rows without a channel', async () => {
      const { log } = await open();
      await log.add([
        row({ count: 5 }),
        row({ address: '10.0.0.9', count: 2, last: T0 + 50_000 }),
        row({ minute: T0 + MINUTE, first: T0 + MINUTE, last: T0 + MINUTE, count: 7 }),
        row({ channelId: CH2, channelName: 'Other', count: 1 }),
        row({ channelId: '', channelName: '', listener: 'http', reason: 'no_channel', count: 100 }),
      ]);
      const counts = await log.countsByChannel(T0, T0 + MINUTE);
      expect(counts).toEqual([
        { channelId: CH1, channelName: 'Lab', count: 7, last: T0 + 50_000 },
        { channelId: CH2, channelName: 'Other', count: 1, last: T0 + 2000 },
      ]);
      expect((await log.countsByChannel(T0, T0 + 2 * MINUTE))[0]?.count).toBe(14);
    });

    it('removes the rows of minutes before a time, as retention does', async () => {
      const { log } = await open();
      await log.add([row(), row({ minute: T0 + MINUTE, first: T0 + MINUTE, last: T0 + MINUTE }), row({ minute: T0 + 2 * MINUTE, first: T0 + 2 * MINUTE, last: T0 + 2 * MINUTE })]);
      expect(await log.removeBefore(T0 + 2 * MINUTE)).toBe(2);
      expect((await log.page({}, { limit: 10, skip: 0 })).items.map((r) => r.minute)).toEqual([T0 + 2 * MINUTE]);
      expect(await log.removeBefore(T0)).toBe(0);
    });

    it('adds a large batch, with repeated keys in it, in one call', async () => {
      const { log } = await open();
      const rows = Array.from({ length: 2500 }, (_, i) => row({ address: `10.1.${String(Math.floor(i / 250))}.${String(i % 250)}` }));
      rows.push(row({ address: '10.1.0.0', count: 9 }));
      await log.add(rows);
      const { total } = await log.page({}, { limit: 1, skip: 0 });
      expect(total).toBe(2500);
      expect((await log.page({ address: '10.1.0.0' }, { limit: 5, skip: 0 })).items[0]?.count).toBe(10);
    });
  });
}
