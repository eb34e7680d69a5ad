/**
 * The proxy benchmark's open-loop pacer (http-pacer.c): compiled at bench time with `cc -O2` into a folder of the
 * caller's and run as a child process, so the generator of the even-rate load takes a few percent of a core.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LoadResult } from '../lib/load.js';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));

/** The C source: beside this file from source (vitest), or in the checkout's test/bench/http-pacer from dist/. */
function source(): string {
  const candidates = [join(here, 'http-pacer.c'), join(here, '..', '..', '..', '..', 'test', 'bench', 'http-pacer', 'http-pacer.c')];
  const found = candidates.find((file) => existsSync(file));
  if (found === undefined) throw new Error(`http-pacer.c not found in ${candidates.join(' nor ')}`);
  return found;
}

/** Compiles the pacer into `dir` and returns its path; a clear error without a C compiler (Debian: build-essential). */
export async function compileHttpPacer(dir: string): Promise<string> {
  const compiler = process.env.CC ?? 'cc';
  const program = join(dir, 'http-pacer');
  try {
    await run(compiler, ['-O2', '-o', program, source()]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`the proxy benchmark's pacer needs a C compiler (${compiler}); on Debian: apt-get install build-essential`, { cause: err });
    throw err;
  }
  return program;
}

export interface PacerOptions {
  port: number;
  path: string;
  /** Requests per second, each due at start + n/rate. */
  rate: number;
  durationMs: number;
  connections: number;
  /** Sent as a POST body with this content type; a GET without it. */
  body?: { bytes: Buffer; contentType: string };
  /** Where the body is written for the pacer to read. */
  workDir: string;
}

/** Runs the pacer to its end; its figures as a LoadResult, with the CPU it used in seconds. */
export async function runHttpPacer(program: string, options: PacerOptions): Promise<LoadResult & { generatorCpuSeconds: number }> {
  const args = ['--port', String(options.port), '--path', options.path, '--rate', String(options.rate), '--seconds', String(options.durationMs / 1000), '--connections', String(options.connections)];
  if (options.body !== undefined) {
    const file = join(options.workDir, 'pacer-body');
    await writeFile(file, options.body.bytes);
    args.push('--body-file', file, '--content-type', options.body.contentType);
  }
  // The pacer ends by itself (its run plus at most its 30 s answer timeout); the kill is only a net under a bug.
  const { stdout } = await run(program, args, { timeout: options.durationMs + 60_000, killSignal: 'SIGKILL' });
  const r = JSON.parse(stdout) as { requests: number; seconds: number; p50Ms: number; p99Ms: number; errors: number; cpuSeconds: number; statuses: Record<string, number> };
  const statuses: Record<number, number> = {};
  for (const [code, count] of Object.entries(r.statuses)) statuses[Number(code)] = count;
  return {
    requests: r.requests,
    rps: r.seconds > 0 ? Math.round(r.requests / r.seconds) : 0,
    p50ms: r.p50Ms,
    p99ms: r.p99Ms,
    errors: r.errors,
    timeouts: 0,
    statuses,
    generatorCpuSeconds: r.cpuSeconds,
  };
}
