/**
 * The MLLP benchmark's C programs (mllp-load.c, mllp-ack-server.c): compiled at bench time with `cc -O2 -pthread`
 * into a folder of the caller's, run as child processes. Used by scenarios/mllp.ts and by mllp-load.test.ts.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The folder of the C sources: beside this file when run from source (vitest), or the same folder of the checkout
 * when run from dist/test/bench/mllp-load/ (the build copies no C files).
 */
function sourceFolder(): string {
  if (existsSync(join(here, 'mllp-load.c'))) return here;
  const fromDist = join(here, '..', '..', '..', '..', 'test', 'bench', 'mllp-load');
  if (existsSync(join(fromDist, 'mllp-load.c'))) return fromDist;
  throw new Error(`mllp-load.c not found beside ${here} nor in ${fromDist}`);
}

export interface MllpPrograms {
  load: string;
  ackServer: string;
}

/** Compiles both programs into `dir`; a clear error when no C compiler is installed (Debian: build-essential). */
export async function compileMllpPrograms(dir: string): Promise<MllpPrograms> {
  const src = sourceFolder();
  const compiler = process.env.CC ?? 'cc';
  const programs = { load: join(dir, 'mllp-load'), ackServer: join(dir, 'mllp-ack-server') };
  try {
    await Promise.all([
      run(compiler, ['-O2', '-pthread', '-o', programs.load, join(src, 'mllp-load.c')]),
      run(compiler, ['-O2', '-pthread', '-o', programs.ackServer, join(src, 'mllp-ack-server.c')]),
    ]);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`the MLLP benchmark needs a C compiler (${compiler}); on Debian: apt-get install build-essential`, { cause: err });
    throw err;
  }
  return programs;
}

/** What mllp-load prints: the measured window's messages and latencies, the whole run's errors by kind. */
export interface MllpLoadResult {
  messages: number;
  seconds: number;
  messagesPerSecond: number;
  /** Null when no message was answered in the window. */
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  /** badReplies + timeouts + connectionErrors, warm-up included. */
  errors: number;
  badReplies: number;
  timeouts: number;
  connectionErrors: number;
  connections: number;
  connects: number;
  warmupMessages: number;
  messageBytes: number;
  generatorCpuSeconds: number;
}

export interface MllpLoadOptions {
  port: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** The longest wait for one reply before it counts as a timeout and the connection is made anew. */
  timeoutMs?: number;
  size?: number;
}

/** Runs the load generator to its end (warm-up + seconds + at most one reply timeout) and parses its figures. */
export async function runMllpLoad(programs: MllpPrograms, options: MllpLoadOptions): Promise<MllpLoadResult> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const args = ['--port', String(options.port), '--connections', String(options.connections), '--seconds', String(options.seconds), '--warmup', String(options.warmupSeconds), '--timeout-ms', String(timeoutMs)];
  if (options.size !== undefined) args.push('--size', String(options.size));
  // The program ends by itself; the kill timeout is only a net under a bug, so a bench never hangs.
  const limitMs = (options.seconds + options.warmupSeconds) * 1000 + timeoutMs * 2 + 10_000;
  const { stdout } = await run(programs.load, args, { timeout: limitMs, killSignal: 'SIGKILL' });
  return JSON.parse(stdout) as MllpLoadResult;
}

export interface RunningAckServer {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

export type AckServerReply = 'aa' | 'ae' | 'wrong-id' | 'unframed' | 'none' | 'close';

/** Starts the ACK server on a free loopback port; `badEvery` N makes every Nth message get `reply` instead of AA. */
export function startAckServer(programs: MllpPrograms, options: { reply?: AckServerReply; badEvery?: number } = {}): Promise<RunningAckServer> {
  const args = ['--port', '0'];
  if (options.reply !== undefined) args.push('--reply', options.reply, '--bad-every', String(options.badEvery ?? 1));
  const child = spawn(programs.ackServer, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mllp-ack-server did not start within 10 s: ${err}`));
    }, 10_000);
    child.stderr?.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-2000)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const port = /^listening (\d+)\n/.exec(out)?.[1];
      if (port === undefined) return;
      clearTimeout(timer);
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      resolve({ child, port: Number(port), stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mllp-ack-server exited (${String(code)}) before it listened: ${err}`));
    });
  });
}
