/**
 * Log scale: a year of a busy clinic's traffic (10,000,000 transactions over 365 days; quick: a month, 300,000)
 * seeded straight into the transaction log's SQLite file, then a fresh start of the service on it: time to ready,
 * memory, the newest page, a channel + status page over 7 days, and the throughput of an NDJSON export of the last
 * 30 days, all through the management API as the console uses it.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { BodyFiles } from '../../../service/storage/bodies/body-files.js';
import { newTransactionId } from '../../../service/storage/transaction-ids.js';
import { SqliteBodyBlobs } from '../../../service/storage/sqlite/body-blobs.js';
import { createSqliteTransactionLog } from '../../../service/storage/sqlite/transaction-log.js';
import type { TransactionRecord } from '../../../service/storage/transactions.js';
import { openApi, passThroughChannel } from '../lib/api.js';
import { round } from '../lib/load.js';
import { ADMIN, cpuMs, rssMb, SERVICE_ENTRY, startJunction } from '../lib/processes.js';

export interface LogScaleFigures extends Measured {
  days: number;
  perDay: number;
  transactions: number;
  /** Transactions that have both bodies in bodies.sqlite (one in BODY_EVERY). */
  withBodies: number;
  seedSeconds: number;
  /** Bytes of transactions.sqlite and bodies.sqlite after seeding. */
  diskMb: { log: number; bodies: number };
  /** The same figures for the build given with --baseline, measured first on the same data. */
  baseline?: Measured;
}

/** What one start of the service on the seeded log measured. */
export interface Measured {
  startToReadyMs: number;
  /** CPU time (user + system) of the service from spawn to ready, from /proc. */
  startCpuMs: number;
  rssAfterReadyMb: number;
  rssAfterQueriesMb: number;
  newestPage: { firstMs: number; medianMs: number };
  /**
   * The first newest page again over FRESH_STARTS more starts (each: start, `/me`, the page), as a single first
   * request is noisy on a shared machine: each wall time, and the CPU the service's main thread spent on the page (from
   * /proc, so a wait for a core does not count).
   */
  firstPageOverStarts: { ms: number[]; medianMs: number; mainThreadCpuMs: number[]; medianCpuMs: number };
  filteredWeekPage: { firstMs: number; medianMs: number; rows: number };
  /** The last EXPORT_DAYS days as NDJSON; CPU seconds of the service per 1,000 exported, from /proc. */
  export: { transactions: number; seconds: number; perSecond: number; mbPerSecond: number; cpuSecondsPer1000: number; complete: boolean };
}

const CHANNELS = 5;
const STATUSES = [
  ['Successful', 200, 0.9],
  ['Failed', 503, 0.05],
  ['Completed', 404, 0.03],
  ['Completed with error(s)', 200, 0.02],
] as const;

/** A deterministic pseudo-random sequence, so every run seeds the same log. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function pick(random: () => number): (typeof STATUSES)[number] {
  let r = random();
  for (const status of STATUSES) {
    r -= status[2];
    if (r <= 0) return status;
  }
  return STATUSES[0];
}

const REQUEST_BODY = Buffer.from(JSON.stringify({ resourceType: 'Observation', status: 'final', code: { text: 'x'.repeat(900) } }));
const RESPONSE_BODY = Buffer.from(JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'information', diagnostics: 'y'.repeat(1300) }] }));

export async function seed(dataDir: string, channelIds: string[], days: number, perDay: number, end: number): Promise<number> {
  const log = createSqliteTransactionLog({ file: join(dataDir, 'transactions.sqlite'), logger: pino({ level: 'silent' }) });
  await log.open();
  // Laid out as the service lays them out with its default engine: small bodies in bodies.sqlite.
  const bodies = new BodyFiles(join(dataDir, 'bodies'), new SqliteBodyBlobs({ file: join(dataDir, 'bodies.sqlite'), logger: pino({ level: 'silent' }) }));
  await bodies.open();
  const random = generator(42);
  let count = 0;
  const store = async (at: number): Promise<void> => {
    const timestamp = new Date(at);
    const id = newTransactionId(timestamp);
    const channelID = channelIds[Math.floor(random() * channelIds.length)] ?? '';
    const [status, code] = pick(random);
    const day = timestamp.toISOString().slice(0, 10);
    const body = async (suffix: string, data: Buffer) => {
      const sink = bodies.sink({ day, channelId: channelID, bodyId: `${id}-${suffix}`, capBytes: 16 * 1024 * 1024 });
      sink.stream.end(data);
      return sink.done;
    };
    const [requestBody, responseBody] = await Promise.all([body('req', REQUEST_BODY), body('res', RESPONSE_BODY)]);
    const record: TransactionRecord = {
      _id: id,
      channelID,
      clientID: `65f0c0ffee00000000000${String(Math.floor(random() * 10)).padStart(3, '0')}`,
      clientIP: '10.0.0.12',
      status,
      request: {
        host: 'junction.clinic.local',
        port: 5001,
        path: `/fhir/Observation/${Math.floor(random() * 100_000)}`,
        querystring: random() < 0.3 ? '_format=json' : '',
        method: random() < 0.7 ? 'POST' : 'GET',
        headers: { 'content-type': 'application/fhir+json', accept: 'application/fhir+json', 'user-agent': 'clinic-emr/4.2', 'x-request-id': id },
        timestamp,
        body: requestBody,
      },
      response: { status: code, headers: { 'content-type': 'application/fhir+json', 'content-length': String(RESPONSE_BODY.length) }, timestamp: new Date(at + 20 + Math.floor(random() * 200)), body: responseBody },
      routes: [],
      orchestrations: [],
      canRerun: true,
      autoRetry: false,
      autoRetryAttempt: 0,
    };
    await log.insert(record);
    count++;
  };
  const start = end - days * 86_400_000;
  const step = 86_400_000 / perDay;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < days * perDay; i++) {
    pending.push(store(Math.floor(start + i * step)));
    // Bounded concurrency: fast enough to seed a month in under a minute, without a million open files.
    if (pending.length >= 500) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
  await log.close();
  await bodies.close();
  return count;
}

/** One transaction in BODY_EVERY stores both bodies: a realistic share of blobs without tens of GB of disk. */
const BODY_EVERY = 10;
/** Rows per SQLite transaction while seeding. */
const SEED_BATCH = 20_000;
/** Transactions left Processing at the newest end, as a crash would leave them, for start-up recovery to finish. */
const LEFT_PROCESSING = 20;

/**
 * Seeds `total` transactions spread evenly over `days` days ending at `end`, straight into the SQLite files the
 * service opens: the schema comes from the transaction log and body store themselves (opened once, then closed),
 * the rows are written with prepared statements, one SQLite transaction per SEED_BATCH rows. Each row holds the
 * document the log would store (dates as `{"$date": ms}`, as documents.ts writes them) and its indexed columns.
 */
export async function seedFast(dataDir: string, channelIds: string[], total: number, days: number, end: number): Promise<{ transactions: number; withBodies: number }> {
  const logFile = join(dataDir, 'transactions.sqlite');
  const bodiesFile = join(dataDir, 'bodies.sqlite');
  const silent = pino({ level: 'silent' });
  const log = createSqliteTransactionLog({ file: logFile, logger: silent });
  await log.open();
  await log.close();
  const blobs = new SqliteBodyBlobs({ file: bodiesFile, logger: silent });
  await blobs.open();
  await blobs.close();

  const db = new Database(logFile);
  const bodyDb = new Database(bodiesFile);
  for (const d of [db, bodyDb]) {
    // Seeding only: a crash mid-seed just means seeding again.
    d.pragma('synchronous = OFF');
    d.pragma('cache_size = -262144');
  }
  const insert = db.prepare('INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)');
  const addDay = db.prepare('INSERT OR IGNORE INTO days (day) VALUES (?)');
  const putBody = bodyDb.prepare('INSERT INTO bodies (path, day, channel, data) VALUES (?, ?, ?, ?)');
  const random = generator(42);
  const start = end - days * 86_400_000;
  const step = (days * 86_400_000) / total;
  let withBodies = 0;
  const bodyRef = (path: string, size: number) => ({ path, size, receivedBytes: size, truncated: false });
  const batch = db.transaction((from: number, to: number) => {
    let lastDay = '';
    for (let i = from; i < to; i++) {
      const at = Math.floor(start + i * step);
      const timestamp = new Date(at);
      const id = newTransactionId(timestamp);
      const day = timestamp.toISOString().slice(0, 10);
      if (day !== lastDay) {
        addDay.run(day);
        lastDay = day;
      }
      const channelID = channelIds[Math.floor(random() * channelIds.length)] ?? '';
      const processing = i >= total - LEFT_PROCESSING;
      const [status, code] = processing ? (['Processing', 0] as const) : pick(random);
      const clientID = `65f0c0ffee00000000000${String(Math.floor(random() * 10)).padStart(3, '0')}`;
      const path = `/fhir/Observation/${Math.floor(random() * 100_000)}`;
      const method = random() < 0.7 ? 'POST' : 'GET';
      const stored = i % BODY_EVERY === 0;
      const request: Record<string, unknown> = {
        host: 'junction.clinic.local',
        port: 5001,
        path,
        querystring: random() < 0.3 ? '_format=json' : '',
        method,
        headers: { 'content-type': 'application/fhir+json', accept: 'application/fhir+json', 'user-agent': 'clinic-emr/4.2', 'x-request-id': id },
        timestamp: { $date: at },
      };
      const response: Record<string, unknown> = {
        status: code,
        headers: { 'content-type': 'application/fhir+json', 'content-length': String(RESPONSE_BODY.length) },
        timestamp: { $date: at + 20 + Math.floor(random() * 200) },
      };
      if (stored) {
        const base = `${day}/${channelID}/${id}`;
        putBody.run(`${base}-req`, day, channelID, REQUEST_BODY);
        putBody.run(`${base}-res`, day, channelID, RESPONSE_BODY);
        request.body = bodyRef(`${base}-req`, REQUEST_BODY.length);
        response.body = bodyRef(`${base}-res`, RESPONSE_BODY.length);
        withBodies++;
      }
      const doc = {
        _id: id,
        channelID,
        clientID,
        clientIP: '10.0.0.12',
        status,
        request,
        ...(processing ? {} : { response }),
        routes: [],
        orchestrations: [],
        canRerun: true,
        autoRetry: false,
        autoRetryAttempt: 0,
      };
      insert.run(id, at, channelID, clientID, status, processing ? null : code, method, path, JSON.stringify(doc));
    }
  });
  const bodyBatch = bodyDb.transaction((run: () => void) => run());
  for (let from = 0; from < total; from += SEED_BATCH) {
    bodyBatch(() => batch(from, Math.min(total, from + SEED_BATCH)));
    // Lets the bench's own timers run between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  db.close();
  bodyDb.close();
  return { transactions: total, withBodies };
}

export async function timed(run: () => Promise<unknown>, times: number): Promise<{ firstMs: number; medianMs: number }> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  const first = samples[0] ?? Number.NaN;
  const warm = samples.slice(1).sort((a, b) => a - b);
  return { firstMs: round(first), medianMs: round(warm[Math.floor(warm.length / 2)] ?? first) };
}

/** Days the export covers, counted back from the newest transaction: a month, as a clinic exports for a report. */
const EXPORT_DAYS = 30;
/**
 * The export is read for at most this long, then abandoned and its rate taken over what arrived: before issue 19 each
 * batch of an export walked the index from the newest row, so a month out of 10,000,000 took the better part of an
 * hour, and its rate fell as it went (the figure then flatters it; `complete` says so).
 */
const EXPORT_MAX_MS = 120_000;

/** Streams a GET for at most `maxMs` and reports its size, whole lines and duration. */
async function drainFor(apiUrl: string, dataDir: string, path: string, maxMs: number): Promise<{ status: number; bytes: number; lines: number; ms: number; complete: boolean }> {
  const ca = await readFile(join(dataDir, 'keystore', 'server-cert.pem'), 'utf8');
  const dispatcher = new Agent({ connect: { ca, servername: 'localhost' } });
  const authorization = `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}`;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), maxMs);
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  let status = 0;
  let complete = true;
  try {
    const res = await request(`${apiUrl}${path}`, { method: 'GET', dispatcher, headers: { authorization }, signal: abort.signal });
    status = res.statusCode;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
    complete = false;
  } finally {
    clearTimeout(timer);
    await dispatcher.destroy();
  }
  return { status, bytes, lines, ms: performance.now() - started, complete };
}

interface Seeded {
  channelIds: string[];
  end: number;
  transactions: number;
  withBodies: number;
  seedSeconds: number;
}

/**
 * A data folder holding `total` transactions over `days` days. With JUNCTION_BENCH_LOG_DIR set, the folder is kept
 * there and reused by the next run asking for the same log (seeding 10,000,000 takes minutes), so two builds can be
 * measured on the same data; without it, a temporary folder removed afterwards.
 */
async function seededFolder(total: number, days: number): Promise<{ dataDir: string; seeded: Seeded; cleanup: () => Promise<void> }> {
  const kept = process.env.JUNCTION_BENCH_LOG_DIR;
  const dir = kept === undefined || kept === '' ? await mkdtemp(join(tmpdir(), 'junction-bench-log-')) : join(kept, `${total}-${days}`);
  const cleanup = kept === undefined || kept === '' ? () => rm(dir, { recursive: true, force: true }) : () => Promise.resolve();
  const dataDir = join(dir, 'data');
  const manifest = join(dir, 'seeded.json');
  if (existsSync(manifest)) return { dataDir, seeded: JSON.parse(await readFile(manifest, 'utf8')) as Seeded, cleanup };
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  // First start: certificate, admin account and the channels the seeded transactions belong to.
  const first = await startJunction(dataDir);
  const setup = await openApi(first.apiUrl, dataDir);
  const channelIds: string[] = [];
  for (let i = 0; i < CHANNELS; i++) {
    const created = await setup.json<{ _id: string }>('POST', '/channels', passThroughChannel(9, `seeded-${i}`, { urlPattern: `^/seeded-${i}/.*$` }));
    channelIds.push(created.body._id);
  }
  await setup.close();
  await first.stop();
  const end = Date.now();
  const seedStarted = performance.now();
  const { transactions, withBodies } = await seedFast(dataDir, channelIds, total, days, end);
  const seeded: Seeded = { channelIds, end, transactions, withBodies, seedSeconds: round((performance.now() - seedStarted) / 1000, 1) };
  await writeFile(manifest, JSON.stringify(seeded));
  return { dataDir, seeded, cleanup };
}

async function fileMb(file: string): Promise<number> {
  const { size } = await stat(file);
  return round(size / 2 ** 20, 0);
}

/** Seeds `total` transactions over `days` days (or reuses them, see seededFolder) and measures the service on them. */
export async function logScaleScenario(total: number, days: number, baselineEntry?: string): Promise<LogScaleFigures> {
  const { dataDir, seeded, cleanup } = await seededFolder(total, days);
  const { transactions, withBodies, seedSeconds } = seeded;
  try {
    const diskMb = { log: await fileMb(join(dataDir, 'transactions.sqlite')), bodies: await fileMb(join(dataDir, 'bodies.sqlite')) };
    // The baseline first: the page cache then favours this build no more than a second start would.
    const baseline = baselineEntry === undefined ? undefined : await measure(dataDir, seeded, baselineEntry);
    const current = await measure(dataDir, seeded, SERVICE_ENTRY);
    return { days, perDay: Math.round(transactions / days), transactions, withBodies, seedSeconds, diskMb, ...current, ...(baseline === undefined ? {} : { baseline }) };
  } finally {
    await cleanup();
  }
}

/** Further fresh starts that each measure only the first newest page after `/me` (see Measured.firstPageOverStarts). */
const FRESH_STARTS = 4;

/** CPU time of a process's main thread so far, in ms, from /proc (schedstat: nanoseconds on a CPU). */
async function mainThreadCpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  const schedstat = await readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').catch(() => '');
  return schedstat === '' ? Number.NaN : Number(schedstat.split(' ')[0]) / 1e6;
}

/** One fresh start, `/me`, then the first newest page: its wall time and the main thread's CPU for it. */
async function firstPageOfAStart(dataDir: string, entry: string): Promise<{ ms: number; cpuMs: number }> {
  const junction = await startJunction(dataDir, {}, [], entry);
  try {
    const api = await openApi(junction.apiUrl, dataDir);
    await api.json('GET', '/me');
    const cpuBefore = await mainThreadCpuMs(junction.child.pid);
    const { ms } = await api.json('GET', '/transactions?filterLimit=20&filterPage=0');
    const cpuMs = (await mainThreadCpuMs(junction.child.pid)) - cpuBefore;
    await api.close();
    return { ms: round(ms), cpuMs: round(cpuMs) };
  } finally {
    await junction.stop();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** One fresh start of the service at `entry` on the seeded folder, and the queries. */
async function measure(dataDir: string, seeded: Seeded, entry: string): Promise<Measured> {
  const { channelIds, end } = seeded;
  const junction = await startJunction(dataDir, {}, [], entry);
  try {
    // CPU the service used to get ready: on a shared machine the wall time also counts waiting for a core.
    const startCpuMs = await cpuMs(junction.child.pid);
    const rssAfterReadyMb = round(await rssMb(junction.child.pid), 1);
    const api = await openApi(junction.apiUrl, dataDir);
    // Pays for the one scrypt verification of the Basic credential, which is not what the page timings measure.
    await api.json('GET', '/me');
    const newestPage = await timed(() => api.json('GET', '/transactions?filterLimit=20&filterPage=0'), 21);
    const weekFilter = {
      channelID: channelIds[1],
      status: 'Failed',
      'request.timestamp': { $gte: new Date(end - 7 * 86_400_000).toISOString(), $lte: new Date(end).toISOString() },
    };
    const query = `/transactions?filterLimit=20&filterPage=0&filters=${encodeURIComponent(JSON.stringify(weekFilter))}`;
    let rows = 0;
    const filteredWeekPage = await timed(async () => {
      rows = (await api.json<unknown[]>('GET', query)).body.length;
    }, 21);
    const exportFilter = { 'request.timestamp': { $gte: new Date(end - EXPORT_DAYS * 86_400_000).toISOString() } };
    const cpuBefore = await cpuMs(junction.child.pid);
    const exported = await drainFor(junction.apiUrl, dataDir, `/transactions/export?format=ndjson&filters=${encodeURIComponent(JSON.stringify(exportFilter))}`, EXPORT_MAX_MS);
    const exportCpuMs = (await cpuMs(junction.child.pid)) - cpuBefore;
    if (exported.status !== 200) throw new Error(`export answered ${exported.status}`);
    const rssAfterQueriesMb = round(await rssMb(junction.child.pid), 1);
    await api.close();
    await junction.stop();
    const firsts: { ms: number; cpuMs: number }[] = [];
    for (let i = 0; i < FRESH_STARTS; i++) firsts.push(await firstPageOfAStart(dataDir, entry));
    const firstPageOverStarts = {
      ms: firsts.map((f) => f.ms),
      medianMs: median(firsts.map((f) => f.ms)),
      mainThreadCpuMs: firsts.map((f) => f.cpuMs),
      medianCpuMs: median(firsts.map((f) => f.cpuMs)),
    };
    const seconds = exported.ms / 1000;
    return {
      startToReadyMs: round(junction.readyMs, 0),
      startCpuMs,
      rssAfterReadyMb,
      rssAfterQueriesMb,
      newestPage,
      firstPageOverStarts,
      filteredWeekPage: { ...filteredWeekPage, rows },
      export: {
        transactions: exported.lines,
        seconds: round(seconds, 1),
        perSecond: Math.round(exported.lines / seconds),
        mbPerSecond: round(exported.bytes / 2 ** 20 / seconds, 1),
        cpuSecondsPer1000: round(exportCpuMs / exported.lines, 3),
        complete: exported.complete,
      },
    };
  } finally {
    await junction.stop();
  }
}
