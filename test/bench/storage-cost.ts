/**
 * The storage work of a proxied transaction alone, without HTTP: what the pipeline asks of the embedded engine for each
 * request of the proxy scenario (insert as Processing, a 1 KB request body and a 1 KB response body into
 * bodies.sqlite, the completing update), 50 transactions in flight as the proxy scenario's 50 connections, against the
 * real SQLite classes. Prints the process's CPU ms per transaction (every thread: the checkpoint workers too).
 *
 * `npm run build:service && node dist/test/bench/storage-cost.js [transactions, default 40000]`. Its noise is a few
 * per cent, far below the proxy scenario's, so it can tell apart changes of 5% in the storage work (docs/BENCHMARKS.md,
 * "Issue 19: storage cost per transaction").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { BodyFiles } from '../../service/storage/bodies/body-files.js';
import { SqliteBodyBlobs } from '../../service/storage/sqlite/body-blobs.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';
import { dayOf, newTransactionId } from '../../service/storage/transaction-ids.js';
import type { BodyRef } from '../../service/storage/bodies/bodies.js';
import type { TransactionLog, TransactionRecord } from '../../service/storage/transactions.js';

const CHANNEL = '6566f0a1b2c3d4e5f6a7b8c9';
const IN_FLIGHT = 50;
const BODY = Buffer.alloc(1024, 'y');
const HEADERS = { host: '127.0.0.1:5001', 'content-type': 'application/json', 'content-length': '1024', connection: 'keep-alive' };

async function storeBody(bodies: BodyFiles, id: string, day: string, suffix: string): Promise<BodyRef> {
  const sink = bodies.sink({ day, channelId: CHANNEL, bodyId: `${id}-${suffix}`, capBytes: 16 * 1024 * 1024 });
  sink.stream.end(BODY);
  return sink.done;
}

/** One transaction as the pipeline stores it: the Processing row and the request body together, then the answer. */
async function oneTransaction(log: TransactionLog, bodies: BodyFiles): Promise<void> {
  const at = new Date();
  const id = newTransactionId(at);
  const day = dayOf(at);
  const request = { host: '127.0.0.1', port: 5001, protocol: 'http', path: '/fhir/Observation', querystring: '', method: 'POST', headers: HEADERS, timestamp: at };
  const record: TransactionRecord = { _id: id, channelID: CHANNEL, clientIP: '127.0.0.1', status: 'Processing', request, routes: [], orchestrations: [], canRerun: true, autoRetry: false, autoRetryAttempt: 0 };
  const inserted = log.insert(record);
  const requestBody = await storeBody(bodies, id, day, 'req');
  await inserted;
  // The upstream's answer comes in a later turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  const responseBody = await storeBody(bodies, id, day, 'res');
  await log.update(id, {
    set: { status: 'Successful', request: { ...request, body: requestBody }, response: { status: 200, headers: HEADERS, timestamp: new Date(), body: responseBody }, routes: [], canRerun: true, autoRetry: false },
  });
}

async function run(count: number, log: TransactionLog, bodies: BodyFiles): Promise<void> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < count) {
      started++;
      await oneTransaction(log, bodies);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 40_000);
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`not a number of transactions: ${process.argv[2] ?? ''}`);
  const logger = pino({ level: 'silent' });
  const dir = await mkdtemp(join(tmpdir(), 'junction-storage-cost-'));
  const log = createSqliteTransactionLog({ file: join(dir, 'transactions.sqlite'), logger, integrityScanAfterMs: null });
  const bodies = new BodyFiles(join(dir, 'bodies'), new SqliteBodyBlobs({ file: join(dir, 'bodies.sqlite'), logger }));
  try {
    await log.open();
    await bodies.open();
    await run(2000, log, bodies);
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    await run(count, log, bodies);
    const used = process.cpuUsage(cpu);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const perTransaction = (micros: number) => Number((micros / 1000 / count).toFixed(4));
    console.log(
      JSON.stringify({
        transactions: count,
        cpuMsPerTransaction: perTransaction(used.user + used.system),
        userMs: perTransaction(used.user),
        systemMs: perTransaction(used.system),
        transactionsPerSecond: Math.round(count / seconds),
        loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
      }),
    );
  } finally {
    await log.close();
    await bodies.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
