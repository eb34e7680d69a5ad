/**
 * Instances on one PostgreSQL database, simulated in one process: each instance has its own pool (its own
 * PostgresDatabase), its own beat timer, and all of them read one hand-moved clock, so "dead for 15 s" takes no
 * waiting. A killed instance is one whose timer is never moved on again: it simply stops beating.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCluster } from '../../service/cluster/index.js';
import { PostgresInstances } from '../../service/storage/postgres/cluster-instances.js';
import { LiveEvents } from '../../service/events/live.js';
import { PostgresDatabase } from '../../service/storage/postgres/index.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { until } from '../helpers/wait.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });
const BEAT_MS = 5_000;
const DEAD_AFTER_MS = 15_000;

describe('cluster instances on PostgreSQL', () => {
  let db: TestDatabase;
  const opened: PostgresDatabase[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const d of opened) await d.release();
    await db.drop();
  });

  /** One simulated instance: its own pool and beat timer, the shared clock for the times it writes. */
  async function instance(schema: string, clock: ManualTimers, id: string, onDead: (id: string) => Promise<void> = () => Promise.resolve()) {
    const database = new PostgresDatabase({ settings: settingsFor(db.url), logger: silent, schema });
    opened.push(database);
    const pool = await database.acquire();
    const timers = new ManualTimers(clock.now());
    const instances = new PostgresInstances({
      pool: () => pool, identity: { id, name: `host-${id}`, version: '1.2.3' }, beatMs: BEAT_MS, deadAfterMs: DEAD_AFTER_MS, onDead, timers, clock: () => clock.now(), logger: silent,
    });
    return { instances, timers };
  }

  /** Moves the shared clock and the beat timers of the living on, letting every beat they start finish. */
  async function pass(ms: number, clock: ManualTimers, living: { instances: PostgresInstances; timers: ManualTimers }[]): Promise<void> {
    for (let done = 0; done < ms; done += 1_000) {
      clock.advance(1_000);
      for (const l of living) l.timers.advance(1_000);
      await Promise.all(living.map((l) => l.instances.settled()));
    }
  }

  it('lists the live instances with what they said about themselves, and drops one that stopped beating', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => instance(schema, clock, id)));
    await a!.instances.start('https://a:8080');
    await b!.instances.start('https://b:8080');
    await c!.instances.start('https://c:8080');
    const alive = await b!.instances.alive();
    expect(alive.map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(alive[0]).toEqual({ id: 'a', name: 'host-a', apiUrl: 'https://a:8080', version: '1.2.3', started: new Date(clock.now()), lastBeat: new Date(clock.now()) });
    // c is killed: its timer never moves again. Within the limit it is still listed.
    await pass(DEAD_AFTER_MS - 1_000, clock, [a!, b!]);
    expect((await a!.instances.alive()).map((i) => i.id)).toEqual(['a', 'b', 'c']);
    await pass(2_000, clock, [a!, b!]);
    expect((await a!.instances.alive()).map((i) => i.id)).toEqual(['a', 'b']);
  });

  it('finishes a dead instance\'s work exactly once, even when every survivor finds it at the same moment', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const entered: string[] = [];
    const finished: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const survivors = await Promise.all(['s1', 's2', 's3'].map((me) => instance(schema, clock, me, async (id) => {
      entered.push(me);
      await gate;
      finished.push(id);
    })));
    const dead = await instance(schema, clock, 'dead');
    await dead.instances.start('https://dead');
    clock.advance(DEAD_AFTER_MS + 1_000);
    for (const s of survivors) await s.instances.start('https://x');
    // Every survivor looks at once; the first to lock the row holds it while its callback waits at the gate.
    const reaps = new Map(survivors.map((s) => [s.instances.id, s.instances.reap()]));
    const taker = await until('a survivor to claim the dead instance', () => entered[0]);
    // The others find the row locked and return with nothing, without waiting for the gate.
    const others = [...reaps].filter(([id]) => id !== taker).map(([, reap]) => reap);
    expect(await Promise.all(others)).toEqual([[], []]);
    open();
    expect(await reaps.get(taker)).toEqual(['dead']);
    expect(entered).toEqual([taker]);
    expect(finished).toEqual(['dead']);
    const { rows } = await runSql(db.url, `SELECT id FROM ${schema}.cluster_instances ORDER BY id`);
    expect(rows.map((r: { id: string }) => r.id)).toEqual(['s1', 's2', 's3']);
    // Later beats find nothing more to finish.
    for (const s of survivors) expect(await s.instances.reap()).toEqual([]);
  });

  it('keeps a dead instance claimed-for-later when finishing its work fails, and finishes it at a later beat', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    let failures = 1;
    const finished: string[] = [];
    const survivor = await instance(schema, clock, 'survivor', async (id) => {
      if (failures-- > 0) throw new Error('the transaction log is unreachable');
      finished.push(id);
      return Promise.resolve();
    });
    const dead = await instance(schema, clock, 'dead');
    await survivor.instances.start('https://s');
    await dead.instances.start('https://d');
    // The beat at 15 s finds it dead, but finishing its work fails: it stays claimable.
    await pass(DEAD_AFTER_MS, clock, [survivor]);
    expect(finished).toEqual([]);
    expect((await runSql(db.url, `SELECT id FROM ${schema}.cluster_instances WHERE id = 'dead'`)).rowCount).toBe(1);
    await pass(BEAT_MS, clock, [survivor]);
    expect(finished).toEqual(['dead']);
  });

  it('says when it stops, so the others stop listing it at once and a survivor still finishes what it left', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const finished: string[] = [];
    const a = await instance(schema, clock, 'a', (id) => Promise.resolve(void finished.push(id)));
    const b = await instance(schema, clock, 'b');
    await a.instances.start('https://a');
    await b.instances.start('https://b');
    await b.instances.stop();
    expect((await a.instances.alive()).map((i) => i.id)).toEqual(['a']);
    await a.instances.beat();
    expect(finished).toEqual(['b']);
  });

  it('registers again when its own beat comes after another instance took it for dead', async () => {
    const schema = newSchemaName();
    const clock = new ManualTimers();
    const finished: string[] = [];
    const a = await instance(schema, clock, 'a', (id) => Promise.resolve(void finished.push(id)));
    const paused = await instance(schema, clock, 'paused');
    await a.instances.start('https://a');
    await paused.instances.start('https://p');
    await pass(DEAD_AFTER_MS + BEAT_MS, clock, [a]);
    expect(finished).toEqual(['paused']);
    await paused.instances.beat();
    expect((await a.instances.alive()).map((i) => i.id)).toEqual(['a', 'paused']);
  });

  it('as the embedded engine, lists itself alone while started', async () => {
    const clock = new ManualTimers();
    const cluster = await openCluster({ identity: { name: 'clinic', version: '1.0.0' }, events: new LiveEvents(), onInstanceDead: () => Promise.resolve(), invalidations: {}, logger: silent, timers: clock, id: 'only' });
    expect(cluster.engine).toBe('embedded');
    expect(await cluster.alive()).toEqual([]);
    await cluster.register('https://127.0.0.1:8080');
    clock.advance(60_000);
    expect(await cluster.alive()).toEqual([{ id: 'only', name: 'clinic', version: '1.0.0', apiUrl: 'https://127.0.0.1:8080', started: new Date(clock.now() - 60_000), lastBeat: new Date(clock.now()) }]);
    expect(await cluster.leases.take('anything')).toBe(true);
    await cluster.stop();
    expect(await cluster.alive()).toEqual([]);
  });
});
