import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Schedulers } from '../../service/schedulers/registry.js';
import { applyMetricsRetention, applyRetention, firstDayKept } from '../../service/schedulers/retention.js';
import { BodyFiles } from '../../service/storage/bodies/body-files.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import { memoryLogger } from '../helpers/logger.js';
import { tempDir } from '../helpers/junction.js';
import { finishedTransaction } from '../helpers/transactions.js';

const silent = pino({ level: 'silent' });
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('the scheduler registry', () => {
  it('runs a job at every tick, not once, and keeps going after a failure', async () => {
    // Fake timers (and Date): node-schedule plans each cron tick from the clock, so time is advanced, not waited for.
    vi.useFakeTimers({ now: new Date('2024-05-01T00:00:00.500Z') });
    try {
      let runs = 0;
      const { logger, lines } = memoryLogger();
      const schedulers = new Schedulers(
        [{ name: 'tick', cron: '* * * * * *', run: () => (++runs === 1 ? Promise.reject(new Error('first run fails')) : Promise.resolve()) }],
        logger,
      );
      schedulers.start();
      await vi.advanceTimersByTimeAsync(3200);
      await schedulers.stop();
      expect(runs).toBeGreaterThanOrEqual(2);
      expect(lines.some((l) => l.level === 50 && l.job === 'tick')).toBe(true);
      const after = runs;
      await vi.advanceTimersByTimeAsync(1200);
      expect(runs).toBe(after);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses an invalid schedule', () => {
    const schedulers = new Schedulers([{ name: 'bad', cron: 'every now and then', run: () => Promise.resolve() }], silent);
    expect(() => schedulers.start()).toThrow(/invalid schedule/);
  });
});

describe('retention', () => {
  it('computes the first day kept', () => {
    expect(firstDayKept(new Date('2026-11-21T10:00:00Z'), 1)).toBe('2026-11-21');
    expect(firstDayKept(new Date('2026-11-21T10:00:00Z'), 30)).toBe('2026-10-23');
  });

  it('drops whole old days of transactions and bodies, and a channel\'s bodies past its maxBodyAgeDays', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const store = createNedbStore({ dataDir: dir, logger: silent });
    await store.open();
    const transactions = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent });
    await transactions.open();
    const bodies = new BodyFiles(join(dir, 'bodies'));
    const now = new Date('2026-11-21T12:00:00Z');
    const base = { routes: [], orchestrations: [], canRerun: true, autoRetry: false, autoRetryAttempt: 0, clientIP: '127.0.0.1', status: 'Successful' as const };
    const channel = await store.channels.insert({ name: 'short-bodies', maxBodyAgeDays: 3, routes: [] } as unknown as Omit<ChannelRecord, '_id'>);
    for (const day of ['2026-10-01', '2026-11-10', '2026-11-20']) {
      const at = new Date(`${day}T08:00:00Z`);
      await transactions.insert({ ...base, _id: newTransactionId(at), channelID: channel._id, request: { path: '/x', querystring: '', method: 'GET', headers: {}, timestamp: at } });
      const sink = bodies.sink({ day, channelId: channel._id, bodyId: 'b', capBytes: 10 });
      await pipeline(Readable.from([Buffer.from('body')]), sink.stream);
    }

    await applyRetention({ transactions, bodies, channels: store.channels, maxAgeDays: 30, logger: silent, now: () => now });
    expect(await transactions.days()).toEqual(['2026-11-10', '2026-11-20']);
    expect(await bodies.days()).toEqual(['2026-11-10', '2026-11-20']);
    expect(existsSync(join(dir, 'bodies', '2026-11-10', channel._id))).toBe(false);
    expect(existsSync(join(dir, 'bodies', '2026-11-20', channel._id, 'b'))).toBe(true);
    expect(await transactions.count({ to: new Date('2026-10-31T23:59:59Z') })).toBe(0);

    // maxAgeDays 0 keeps every transaction.
    await applyRetention({ transactions, bodies, channels: store.channels, maxAgeDays: 0, logger: silent, now: () => new Date('2027-06-01T00:00:00Z') });
    expect(await transactions.days()).toEqual(['2026-11-10', '2026-11-20']);
    await transactions.close();
    await store.close();
  });
});

describe('metrics retention', () => {
  it('drops minute buckets older than the configured hours and finished entries older than two days, and nothing newer', async () => {
    const dir = await tempDir('junction-metrics-retention-');
    dirs.push(dir);
    let clock = Date.parse('2024-05-01T00:00:00Z');
    const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger: silent, now: () => clock });
    await log.open();
    try {
      for (const at of ['2024-05-01T00:00:00Z', '2024-05-02T23:30:00Z']) {
        clock = Date.parse(at);
        await log.insert(finishedTransaction({ channelID: 'ch', at, status: 'Successful', responseMs: 1 }));
      }
      const everything = { from: new Date('2024-04-01T00:00:00Z'), to: new Date('2024-06-01T00:00:00Z') };
      // With minute buckets kept 24 hours: the first day's minute is gone, the second's stays.
      await applyMetricsRetention({ transactions: log, minuteRetentionHours: 24, logger: silent, now: () => new Date('2024-05-02T23:45:00Z') });
      expect((await log.metrics({ period: 'minute', ...everything })).map((b) => b.startTime.toISOString())).toEqual(['2024-05-02T23:30:00.000Z']);
      expect(await log.metrics({ period: 'hour', ...everything })).toHaveLength(2);
      expect((await log.finishedAfter(0, 10)).length).toBe(2);
      await applyMetricsRetention({ transactions: log, minuteRetentionHours: 24, logger: silent, now: () => new Date('2024-05-03T00:00:01Z') });
      expect((await log.finishedAfter(0, 10)).map((f) => f.at.toISOString())).toEqual(['2024-05-02T23:30:00.000Z']);
    } finally {
      await log.close();
    }
  });
});
