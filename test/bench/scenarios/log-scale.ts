/**
 * Log scale: a month of a busy clinic's traffic (30 days x 10,000 transactions, bodies included) seeded into a data
 * folder, then a fresh start of the service on it: time to ready, memory, the newest page, a channel + status page
 * over 7 days, and the throughput of an NDJSON export, all through the management API as the console uses it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { BodyFiles } from '../../../service/storage/bodies/body-files.js';
import { newTransactionId } from '../../../service/storage/transaction-ids.js';
import { SqliteBodyBlobs } from '../../../service/storage/sqlite/body-blobs.js';
import { createSqliteTransactionLog } from '../../../service/storage/sqlite/transaction-log.js';
import type { TransactionRecord } from '../../../service/storage/transactions.js';
import { openApi, passThroughChannel } from '../lib/api.js';
import { round } from '../lib/load.js';
import { rssMb, startJunction } from '../lib/processes.js';

export interface LogScaleFigures {
  days: number;
  perDay: number;
  transactions: number;
  seedSeconds: number;
  startToReadyMs: number;
  rssAfterReadyMb: number;
  rssAfterQueriesMb: number;
  newestPage: { firstMs: number; medianMs: number };
  filteredWeekPage: { firstMs: number; medianMs: number; rows: number };
  export: { transactions: number; seconds: number; perSecond: number; mbPerSecond: number };
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

/** Seeds `days x perDay` transactions and measures the service on them. */
export async function logScaleScenario(days: number, perDay: number): Promise<LogScaleFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-log-'));
  const dataDir = join(dir, 'data');
  try {
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
    const transactions = await seed(dataDir, channelIds, days, perDay, end);
    const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);

    const junction = await startJunction(dataDir);
    try {
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
      const exported = await api.drain('/transactions/export?format=ndjson');
      if (exported.status !== 200) throw new Error(`export answered ${exported.status}`);
      const rssAfterQueriesMb = round(await rssMb(junction.child.pid), 1);
      await api.close();
      const seconds = exported.ms / 1000;
      return {
        days,
        perDay,
        transactions,
        seedSeconds,
        startToReadyMs: round(junction.readyMs, 0),
        rssAfterReadyMb,
        rssAfterQueriesMb,
        newestPage,
        filteredWeekPage: { ...filteredWeekPage, rows },
        export: { transactions: exported.lines, seconds: round(seconds, 1), perSecond: Math.round(exported.lines / seconds), mbPerSecond: round(exported.bytes / 2 ** 20 / seconds, 1) },
      };
    } finally {
      await junction.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
