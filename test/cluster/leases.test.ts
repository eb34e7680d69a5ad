/**
 * Scheduled work across instances: job leases and claimed ticks on one PostgreSQL database, and the job registry
 * using them. Each simulated instance has its own pool, its own registry and its own job clock; all of them are
 * moved on together, and the times written to the database come from the same hand-moved clock.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresLeases } from '../../service/storage/postgres/cluster-leases.js';
import { Schedulers } from '../../service/schedulers/registry.js';
import type { ScheduledJob } from '../../service/schedulers/registry.js';
import type { JobLeases } from '../../service/schedulers/leases.js';
import { PostgresDatabase } from '../../service/storage/postgres/index.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { createTestDatabase, newSchemaName, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });
const LEASE_MS = 20_000;

describe('job leases and claimed ticks on PostgreSQL', () => {
  let db: TestDatabase;
  const opened: PostgresDatabase[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const d of opened) await d.release();
    await db.drop();
  });

  async function leasesFor(schema: string, holder: string, clock: ManualTimers): Promise<PostgresLeases> {
    const database = new PostgresDatabase({ settings: settingsFor(db.url), logger: silent, schema });
    opened.push(database);
    const pool = await database.acquire();
    return new PostgresLeases({ pool: () => pool, holder, leaseMs: LEASE_MS, clock: () => clock.now() });
  }

  it('grants a lease to one holder, renews it for that holder, and lets another take it once it runs out', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const a = await leasesFor(schema, 'a', clock);
    const b = await leasesFor(schema, 'b', clock);
    expect(await a.take('retention')).toBe(true);
    expect(await b.take('retention')).toBe(false);
    clock.advance(LEASE_MS - 1_000);
    expect(await a.take('retention')).toBe(true);
    clock.advance(LEASE_MS - 1_000);
    expect(await b.take('retention')).toBe(false);
    // a stops renewing (it died): once its lease has run out, b gets it, and a no longer does.
    clock.advance(1_000);
    expect(await b.take('retention')).toBe(true);
    expect(await a.take('retention')).toBe(false);
    expect(await a.holderOf('retention')).toBe('b');
    // Other jobs' leases are separate.
    expect(await a.take('alerts')).toBe(true);
  });

  it('hands the lease over at once when its holder gives it up', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const a = await leasesFor(schema, 'a', clock);
    const b = await leasesFor(schema, 'b', clock);
    expect(await a.take('job')).toBe(true);
    await b.release('job');
    expect(await b.take('job')).toBe(false);
    await a.release('job');
    expect(await b.take('job')).toBe(true);
  });

  it('gives a lease to exactly one of many instances asking at the same moment', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const many = await Promise.all(['a', 'b', 'c', 'd'].map((h) => leasesFor(schema, h, clock)));
    for (let round = 0; round < 10; round++) {
      const job = `job-${round}`;
      const granted = await Promise.all(many.map((l) => l.take(job)));
      expect(granted.filter(Boolean)).toHaveLength(1);
    }
  });

  it('claims each tick once across instances, and never an older one after a newer', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const many = await Promise.all(['a', 'b', 'c'].map((h) => leasesFor(schema, h, clock)));
    for (const slot of [10_000, 20_000, 30_000]) {
      const claims = await Promise.all(many.map((l) => l.claimTick('polling:x', slot)));
      expect(claims.filter(Boolean)).toHaveLength(1);
    }
    expect(await many[0]!.claimTick('polling:x', 20_000)).toBe(false);
    expect(await many[0]!.claimTick('polling:x', 30_000)).toBe(false);
    expect(await many[0]!.claimTick('polling:y', 20_000)).toBe(true);
  });

  describe('in the job registry', () => {
    const pending = new Set<Promise<unknown>>();
    /** The leases with every query they start counted, so a test can wait for renewals made by timers. */
    function tracked(leases: PostgresLeases): JobLeases {
      const track = <T>(p: Promise<T>): Promise<T> => {
        pending.add(p);
        return p.finally(() => pending.delete(p));
      };
      return {
        renewEveryMs: leases.renewEveryMs,
        take: (job) => track(leases.take(job)),
        claimTick: (job, slot) => track(leases.claimTick(job, slot)),
        release: (job) => track(leases.release(job)),
      };
    }

    interface Member {
      name: string;
      timers: ManualTimers;
      registry: Schedulers;
      alive: boolean;
    }

    /** `count` registries, each with `jobs()` of its own, started `staggerMs` apart on the shared clock. */
    async function cluster(count: number, jobs: (member: string) => ScheduledJob[], staggerMs: number) {
      const schema = newSchemaName();
      const clock = new ManualTimers();
      const members: Member[] = [];
      for (let i = 0; i < count; i++) {
        const name = `i${i}`;
        const timers = new ManualTimers(clock.now());
        const leases = tracked(await leasesFor(schema, name, clock));
        const registry = new Schedulers(jobs(name), silent, timers, leases);
        registry.start();
        members.push({ name, timers, registry, alive: true });
        if (i < count - 1) await pass(staggerMs);
      }
      /**
       * Moves every clock on a second at a time, letting the runs each second starts finish (except on the members
       * named in `busy`, whose run is held open) and every lease query finish.
       */
      async function pass(ms: number, busy: ReadonlySet<string> = new Set()): Promise<void> {
        for (let done = 0; done < ms; done += 1_000) {
          clock.advance(1_000);
          for (const m of members) if (m.alive) m.timers.advance(1_000);
          await Promise.all(members.map((m) => settledUnlessBusy(m, busy)));
          while (pending.size > 0) await Promise.all([...pending]);
        }
      }
      /** Waits for a member's runs to finish, or for it to be named busy (its run is held open by the test). */
      async function settledUnlessBusy(m: Member, busy: ReadonlySet<string>): Promise<void> {
        const settled = m.registry.settled().then(() => true);
        while (!busy.has(m.name)) {
          if (await Promise.race([settled, new Promise<false>((resolve) => setImmediate(resolve, false))])) return;
        }
      }
      return { members, pass, clock };
    }

    it('runs an interval job once per interval across instances started at different times, and a survivor takes it over within 30 s of its holder dying', async () => {
      const runs: { slot: number; by: string; at: number }[] = [];
      let clockNow = (): number => 0;
      const everyMs = 10_000;
      const { members, pass, clock } = await cluster(3, (by) => [{ name: 'polling:abc', everyMs, run: () => Promise.resolve(void runs.push({ slot: Math.floor(clockNow() / everyMs), by, at: clockNow() })) }], 3_000);
      clockNow = () => clock.now();
      await pass(120_000);
      const holder = runs[0]!.by;
      expect(runs.every((r) => r.by === holder)).toBe(true);
      // The holder dies: its timers stop and it never renews or gives up its lease.
      const killedAt = clock.now();
      members.find((m) => m.name === holder)!.alive = false;
      await pass(120_000);
      const after = runs.filter((r) => r.at > killedAt);
      expect(after.length).toBeGreaterThan(0);
      expect(after[0]!.by).not.toBe(holder);
      expect(after[0]!.at - killedAt).toBeLessThanOrEqual(30_000);
      // No tick ran twice, before or after the takeover.
      const slots = runs.map((r) => r.slot);
      expect(new Set(slots).size).toBe(slots.length);
      // And one ran in every interval except those between the death and the takeover.
      expect(runs.filter((r) => r.at <= killedAt).length).toBeGreaterThanOrEqual(11);
      expect(after.length).toBeGreaterThanOrEqual(9);
    });

    it('runs a job marked everyInstance on every instance, without asking for a lease', async () => {
      const runs: string[] = [];
      const { pass } = await cluster(3, (by) => [{ name: 'polling', everyMs: 10_000, everyInstance: true, run: () => Promise.resolve(void runs.push(by)) }], 0);
      await pass(30_000);
      expect(runs.sort()).toEqual(['i0', 'i0', 'i0', 'i1', 'i1', 'i1', 'i2', 'i2', 'i2']);
    });

    it('runs a cron job once per planned time when every instance fires it at the same moment', async () => {
      const runs: string[] = [];
      const { pass } = await cluster(3, (by) => [{ name: 'reports', cron: '*/15 * * * * *', run: () => Promise.resolve(void runs.push(by)) }], 0);
      await pass(60_000);
      expect(runs).toHaveLength(4);
    });

    it('keeps the lease of a run that lasts longer than the lease, so no other instance starts the job beside it', async () => {
      let finish!: () => void;
      const running: string[] = [];
      const busy = new Set<string>();
      const { pass, members } = await cluster(2, (by) => [{
        name: 'task-runner', everyMs: 5_000,
        run: async () => {
          running.push(by);
          if (running.length > 1) return;
          busy.add(by);
          await new Promise<void>((resolve) => (finish = resolve));
        },
      }], 1_000);
      void members;
      await pass(5_000, busy);
      expect(running).toHaveLength(1);
      // Three lease lengths later, the run still holds the lease: the other instance's ticks all stand aside.
      await pass(3 * LEASE_MS, busy);
      expect(running).toHaveLength(1);
      finish();
      busy.clear();
      await pass(10_000);
      // Once it has finished, the job runs again at each of its ticks, on the holder, which renewed its lease all along.
      expect(running).toEqual([running[0], running[0], running[0]]);
    });
  });
});

describe('the job registry when the lease store fails', () => {
  it('skips a run whose lease cannot be asked for, logs it, and runs at the next tick once the database answers again', async () => {
    const timers = new ManualTimers();
    let down = true;
    const asked: string[] = [];
    const leases: JobLeases = {
      renewEveryMs: 5_000,
      take: (job) => {
        asked.push(job);
        return down ? Promise.reject(new Error('connection refused')) : Promise.resolve(true);
      },
      claimTick: () => Promise.resolve(true),
      release: () => Promise.resolve(),
    };
    const logged: unknown[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
    let runs = 0;
    const registry = new Schedulers([{ name: 'auto-retry', everyMs: 10_000, run: () => Promise.resolve(void runs++) }], logger, timers, leases);
    registry.start();
    timers.advance(10_000);
    await registry.settled();
    expect(runs).toBe(0);
    expect(logged).toEqual([expect.objectContaining({ job: 'auto-retry', msg: 'scheduled job failed; it runs again at its next time' })]);
    down = false;
    timers.advance(10_000);
    await registry.settled();
    expect(runs).toBe(1);
    expect(asked).toEqual(['auto-retry', 'auto-retry']);
    await registry.stop();
  });

  it('does not run a tick another instance claimed, even while holding the lease', async () => {
    // Started 3.7 s into an interval: its timer fires 3.7 s after each boundary.
    const timers = new ManualTimers(Date.UTC(2026, 0, 5, 9, 0, 3, 700));
    const claimed: number[] = [];
    const leases: JobLeases = {
      renewEveryMs: 5_000,
      take: () => Promise.resolve(true),
      claimTick: (_job, slot) => {
        claimed.push(slot);
        return Promise.resolve(claimed.length !== 2);
      },
      release: () => Promise.resolve(),
    };
    let runs = 0;
    const registry = new Schedulers([{ name: 'polling:x', everyMs: 10_000, run: () => Promise.resolve(void runs++) }], silent, timers, leases);
    registry.start();
    for (let i = 0; i < 3; i++) {
      timers.advance(10_000);
      await registry.settled();
    }
    expect(runs).toBe(2);
    // Slots are the interval's boundaries, the same on every instance whatever moment its timer fired.
    expect(claimed.map((slot) => slot % 10_000)).toEqual([0, 0, 0]);
    expect(claimed.map((slot) => slot - claimed[0]!)).toEqual([0, 10_000, 20_000]);
    // A run asked for by hand takes the lease but claims no slot.
    await registry.runNow('polling:x');
    expect(runs).toBe(3);
    expect(claimed).toHaveLength(3);
    await registry.stop();
  });
});
