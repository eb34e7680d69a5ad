/**
 * Where the SQLite worker threads' code is (checkpoint-worker.ts, integrity-scan-worker.ts, snapshot-worker.ts): real
 * modules, type-checked with the rest, found beside this file once compiled. The built service has them there (tsc
 * writes them beside this module, and the bundle emits each as an entry of its own beside the bundle, where this
 * module lands too: scripts/bundle-service.ts). Running from the TypeScript sources (the tests), a worker thread cannot
 * load a `.ts` file on this Node, so the module is compiled once per process with esbuild (a development dependency,
 * never loaded by the built service) and run as an evaluated CommonJS script.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type * as Esbuild from 'esbuild';

/** The worker modules of this folder, by the name of their file without its extension. */
export type SqliteWorkerName = 'checkpoint-worker' | 'integrity-scan-worker' | 'snapshot-worker';

const compiled = new Map<SqliteWorkerName, string>();

/** Starts the worker `name` with `workerData`, from its compiled file when there is one, else from its source. */
export function startSqliteWorker(name: SqliteWorkerName, workerData: unknown): Worker {
  const built = new URL(`./${name}.js`, import.meta.url);
  if (import.meta.url.endsWith('.js') && existsSync(built)) return new Worker(built, { workerData });
  return new Worker(fromSource(name), { eval: true, workerData });
}

function fromSource(name: SqliteWorkerName): string {
  const cached = compiled.get(name);
  if (cached !== undefined) return cached;
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const require = createRequire(import.meta.url);
  const esbuild = require('esbuild') as typeof Esbuild;
  const { code } = esbuild.transformSync(readFileSync(file, 'utf8'), { loader: 'ts', format: 'cjs', platform: 'node', target: 'node20', sourcefile: file });
  // An evaluated worker resolves `require` from the working folder: this one resolves from the module's own folder.
  const script = `(function (require) {\n${code}\n})(require('node:module').createRequire(${JSON.stringify(file)}));`;
  compiled.set(name, script);
  return script;
}
