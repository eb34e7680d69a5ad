/**
 * The refusal recorder (issue 35) over a real SQLite refusal log: repeats fold in memory into one row per minute and
 * key, nothing is written until a flush, the map is bounded (new senders past the bound fold into the `*` row), a
 * failed write is logged and never thrown at a refusal site, connection refusals name their channel by its listener,
 * and recording a flood needs no await.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OVERFLOW_ADDRESS, RefusalRecorder } from '../../service/refused/recorder.js';
import type { RefusalLog } from '../../service/storage/refusals.js';
import { SqliteRefusalLog } from '../../service/storage/sqlite/refusal-log.js';
import { tempDir } from '../helpers/junction.js';
import { memoryLogger } from '../helpers/logger.js';

const T0 = Date.UTC(2026, 11, 3, 8, 0, 0);
let dir: string;
let log: SqliteRefusalLog;
let now = T0;

beforeEach(async () => {
  dir = await tempDir('junction-recorder-');
  log = new SqliteRefusalLog({ file: join(dir, 'refusals.sqlite') });
  await log.open();
  now = T0;
});
afterEach(async () => {
  await log.close();
  await rm(dir, { recursive: true, force: true });
});

function recorder(options: { maxPendingRows?: number; log?: RefusalLog; counted?: string[] } = {}) {
  const logger = memoryLogger();
  const r = new RefusalRecorder({
    log: options.log ?? log,
    logger: logger.logger,
    count: (channel, reason) => options.counted?.push(`${channel}/${reason}`),
    channelIds: (names) => Promise.resolve(new Map(names.filter((n) => n === 'Lab').map((n) => [n, 'aaaaaaaaaaaaaaaaaaaaaaa1']))),
    flushIntervalMs: 3_600_000,
    maxPendingRows: options.maxPendingRows ?? 100,
    now: () => now,
  });
  return { r, lines: logger.lines };
}

const notFound = { code: 'CHANNEL_NOT_FOUND', message: 'No channel matches GET /x' };
const at = (address: string) => ({ listener: 'http', port: 5001, address });

describe('the refusal recorder', () => {
  it('folds repeats per minute and key, writes only when flushed, and counts each refusal', async () => {
    const counted: string[] = [];
    const { r } = recorder({ counted });
    for (let i = 0; i < 5; i++) r.refusedWith(notFound, at('::ffff:10.0.0.5'));
    now += 30_000;
    r.refusedWith(notFound, at('10.0.0.5'));
    now += 40_000;
    r.refusedWith(notFound, at('10.0.0.5'));
    // Not a refusal: Junction's own failure.
    r.refusedWith({ code: 'INTERNAL', message: 'boom' }, at('10.0.0.5'));
    expect(r.pendingRows).toBe(2);
    expect((await log.page({}, { limit: 10, skip: 0 })).total).toBe(0);
    await r.flush();
    const { items } = await log.page({}, { limit: 10, skip: 0 });
    expect(items.map((i) => [i.minute, i.count, i.address, i.first, i.last])).toEqual([
      [T0 + 60_000, 1, '10.0.0.5', T0 + 70_000, T0 + 70_000],
      [T0, 6, '10.0.0.5', T0, T0 + 30_000],
    ]);
    expect(counted).toEqual(Array.from({ length: 7 }, () => '/no_channel'));
    expect(r.pendingRows).toBe(0);
  });

  it('keeps at most maxPendingRows senders apart; the rest fold into one row with the address *', async () => {
    const { r } = recorder({ maxPendingRows: 100 });
    for (let i = 0; i < 1000; i++) r.refusedWith(notFound, at(`10.0.${String(Math.floor(i / 250))}.${String(i % 250)}`));
    expect(r.pendingRows).toBe(101);
    await r.flush();
    const overflow = await log.page({ address: OVERFLOW_ADDRESS }, { limit: 1, skip: 0 });
    expect(overflow.items[0]).toMatchObject({ count: 900, reason: 'no_channel' });
    expect(overflow.items[0]?.detail).toContain('refusals.maxPendingRows');
    expect((await log.page({}, { limit: 1, skip: 0 })).refused).toBe(1000);
  });

  it('records connection refusals by kind, naming the channel of a channel listener by its id', async () => {
    const { r } = recorder();
    r.connectionRefused('channel:Lab', '10.0.0.7', 'per_address', { limit: 16 });
    r.connectionRefused('channel:Lab', '10.0.0.7', 'too_large', { problem: 'a message is longer than the 1024 bytes allowed' });
    r.connectionRefused('http', undefined, 'head_timeout', { headTimeoutMs: 30_000 });
    await r.flush();
    const { items } = await log.page({}, { limit: 10, skip: 0 });
    expect(items.map((i) => [i.reason, i.channelId, i.channelName, i.address, i.detail]).sort()).toEqual([
      ['connection_limit', 'aaaaaaaaaaaaaaaaaaaaaaa1', 'Lab', '10.0.0.7', 'per_address'],
      ['timeout', '', '', 'unknown', 'head_timeout'],
      ['too_large', 'aaaaaaaaaaaaaaaaaaaaaaa1', 'Lab', '10.0.0.7', 'a message is longer than the 1024 bytes allowed'],
    ]);
    expect(await r.recentByChannel(T0 - 3_600_000)).toEqual([{ channelId: 'aaaaaaaaaaaaaaaaaaaaaaa1', channelName: 'Lab', count: 2, last: T0 }]);
  });

  it('logs a write that fails and never rejects; the next batch is written', async () => {
    let fail = true;
    const flaky: RefusalLog = { ...log, open: () => log.open(), add: (rows) => (fail ? Promise.reject(new Error('disk I/O error')) : log.add(rows)), page: (f, w) => log.page(f, w), countsByChannel: (a, b) => log.countsByChannel(a, b), removeBefore: (b) => log.removeBefore(b), close: () => log.close() };
    const { r, lines } = recorder({ log: flaky });
    r.refusedWith(notFound, at('10.0.0.5'));
    await expect(r.flush()).resolves.toBeUndefined();
    expect(lines.some((l) => l.msg === 'refusals could not be recorded; they are counted in Prometheus and logged by their listeners' && l.refusals === 1)).toBe(true);
    fail = false;
    r.refusedWith(notFound, at('10.0.0.6'));
    await r.flush();
    expect((await log.page({}, { limit: 10, skip: 0 })).items.map((i) => i.address)).toEqual(['10.0.0.6']);
  });

  it('records a flood synchronously (nothing to await) and keeps the map bounded, whatever the number of senders', async () => {
    const { r } = recorder({ maxPendingRows: 1000 });
    for (let i = 0; i < 20_000; i++) expect(r.refusedWith(notFound, at(`10.${String(i % 200)}.${String(Math.floor(i / 200) % 250)}.1`))).toBeUndefined();
    expect(r.pendingRows).toBe(1001);
    await r.flush();
    expect((await log.page({}, { limit: 1, skip: 0 })).refused).toBe(20_000);
  });
});
