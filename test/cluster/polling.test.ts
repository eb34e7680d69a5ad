/**
 * A polling channel served by several instances on one PostgreSQL database: every instance schedules it (polling's
 * sync job runs everywhere), but each tick is polled once across them, and a survivor goes on polling when the
 * instance holding the channel's lease dies. Each simulated instance has its own pool, store, job registry and job
 * clock; the replays that would send the polls are counted instead, since the point here is who polls when.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresLeases } from '../../service/storage/postgres/cluster-leases.js';
import { PollingChannels } from '../../service/schedulers/polling.js';
import { Schedulers } from '../../service/schedulers/registry.js';
import { createPostgresStore, PostgresDatabase } from '../../service/storage/postgres/index.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import type { Store } from '../../service/storage/store.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { createTestDatabase, newSchemaName, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });

interface Member {
  name: string;
  store: Store;
  timers: ManualTimers;
  registry: Schedulers;
  polling: PollingChannels;
  alive: boolean;
}

describe('a polling channel across instances on PostgreSQL', () => {
  let db: TestDatabase;
  const members: Member[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const m of members) await m.store.close();
    await db.drop();
  });

  it('polls each tick once across three instances, and goes on from a survivor within 30 s when the polling instance dies', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const polls: { by: string; at: number; tx: string }[] = [];
    let seq = 0;
    for (const name of ['a', 'b', 'c']) {
      const database = new PostgresDatabase({ settings: settingsFor(db.url), logger: silent, schema });
      const store = createPostgresStore(database);
      await store.open();
      const timers = new ManualTimers(clock.now());
      const pool = await database.acquire();
      const leases = new PostgresLeases({ pool: () => pool, holder: name, leaseMs: 20_000, clock: () => clock.now() });
      const registry = new Schedulers([], silent, timers, leases);
      const polling = new PollingChannels({
        registry, channels: store.channels, logger: silent,
        replays: {
          newTransaction: () => ({ id: `${name}-${seq++}`, receivedAt: new Date(clock.now()) }),
          poll: (_channel: ChannelRecord, tx: { id: string }) => Promise.resolve(void polls.push({ by: name, at: clock.now(), tx: tx.id })) as never,
        },
      });
      registry.add(polling.job());
      members.push({ name, store, timers, registry, polling, alive: true });
      await database.release();
    }
    const now = new Date(clock.now());
    await members[0]!.store.channels.insert({ name: 'pull lab results', type: 'polling', status: 'enabled', pollingSchedule: '10 seconds', routes: [], createdAt: now, updatedAt: now } as never);
    // The instances start 0, 3 and 7 s apart, so their timers fire at different moments within each interval.
    const pass = async (ms: number): Promise<void> => {
      for (let done = 0; done < ms; done += 1_000) {
        clock.advance(1_000);
        for (const m of members) if (m.alive) m.timers.advance(1_000);
        await Promise.all(members.map((m) => m.registry.settled()));
      }
    };
    for (const [i, m] of members.entries()) {
      m.registry.start();
      await m.polling.sync();
      if (i < members.length - 1) await pass(i === 0 ? 3_000 : 4_000);
    }
    await pass(100_000);
    const polled = polls.length;
    expect(polled).toBeGreaterThanOrEqual(10);
    const holder = polls[0]!.by;
    expect(polls.every((p) => p.by === holder)).toBe(true);
    // Killed: its clock stops, and it neither renews nor gives up its lease.
    const killedAt = clock.now();
    members.find((m) => m.name === holder)!.alive = false;
    await pass(100_000);
    const after = polls.slice(polled);
    expect(after.length).toBeGreaterThanOrEqual(7);
    expect(after.every((p) => p.by !== holder)).toBe(true);
    expect(after[0]!.at - killedAt).toBeLessThanOrEqual(30_000);
    // Never two polls in one 10-second interval, before or after the takeover.
    const intervals = polls.map((p) => Math.floor(p.at / 10_000));
    expect(new Set(intervals).size).toBe(intervals.length);
    for (const m of members) if (m.alive) await m.registry.stop();
  });
});
