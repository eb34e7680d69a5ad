/** Child processes of the benchmarks: the service itself, the upstream, the bare proxy and nginx. */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv, freePort, loopbackListeners } from '../../helpers/process.js';

const here = fileURLToPath(new URL('.', import.meta.url));
/** The built service entry point (the bench runs from dist/). */
export const SERVICE_ENTRY = join(here, '..', '..', '..', 'service', 'index.js');
const SERVERS = join(here, '..', 'servers');

export interface Running {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

export interface RunningJunction extends Running {
  apiUrl: string;
  /** Milliseconds from spawn to the ready message. */
  readyMs: number;
  dataDir: string;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

/** Spawns a Node script with IPC and waits for its `{type: 'ready'}` message. */
function spawnReady<T extends { type: string }>(script: string, env: Record<string, string>, timeoutMs = 30_000, nodeArgs: string[] = []): Promise<{ child: ChildProcess; message: T; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: childEnv(env),
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} was not ready within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.on('message', (message: T) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      resolve({ child, message, ms: performance.now() - started });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${String(code)}) before it was ready: ${stderr}`));
    });
  });
}

/** The 1 KB upstream. */
export async function startUpstream(): Promise<Running> {
  const { child, message } = await spawnReady<{ type: string; port: number }>(join(SERVERS, 'upstream.js'), {});
  return { child, port: message.port, stop: stopper(child) };
}

/** The bare undici pass-through proxy in front of `upstreamPort`. */
export async function startBareProxy(upstreamPort: number): Promise<Running> {
  const { child, message } = await spawnReady<{ type: string; port: number }>(join(SERVERS, 'bare-proxy.js'), { UPSTREAM_PORT: String(upstreamPort) });
  return { child, port: message.port, stop: stopper(child) };
}

/** The Fastify + @fastify/http-proxy pass-through proxy in front of `upstreamPort`. */
export async function startFastifyProxy(upstreamPort: number): Promise<Running> {
  const { child, message } = await spawnReady<{ type: string; port: number }>(join(SERVERS, 'fastify-proxy.js'), { UPSTREAM_PORT: String(upstreamPort) });
  return { child, port: message.port, stop: stopper(child) };
}

export const ADMIN = { user: 'root@junction.local', password: 'bench-admin-password-1' };

/**
 * Junction with its defaults, on plain-HTTP transaction port `httpPort`, with the data in `dataDir`. `entry` runs
 * another build (a baseline's `dist/service/index.js`) instead of this one.
 */
export async function startJunction(dataDir: string, env: Record<string, string> = {}, nodeArgs: string[] = [], entry = SERVICE_ENTRY): Promise<RunningJunction> {
  const listeners = await loopbackListeners();
  const { child, message, ms } = await spawnReady<{ type: string; apiUrl: string }>(
    entry,
    { JUNCTION_DATA_DIR: dataDir, ...listeners, JUNCTION_ADMIN_PASSWORD: ADMIN.password, ...env },
    60_000,
    nodeArgs,
  );
  const httpPort = Number(listeners.JUNCTION_ROUTER_HTTP_PORT);
  return { child, port: httpPort, apiUrl: message.apiUrl, readyMs: ms, dataDir, stop: stopper(child) };
}

/** True when an `nginx` binary is on the PATH. */
export function nginxAvailable(): boolean {
  return spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0;
}

/**
 * nginx as a keep-alive reverse proxy to `upstreamPort`, no access log, with **one worker process**: the row issue 19
 * defines ("nginx (one worker, keep-alive)"), and the like-for-like reference for a proxy whose requests run on one
 * main thread. Before 2026-11-27 this was `worker_processes auto` (two workers here), which roughly doubles nginx's
 * req/s on an idle machine, so ratios to nginx from before then are not comparable.
 */
export async function startNginx(upstreamPort: number, dir: string): Promise<Running> {
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir};
  proxy_temp_path ${dir};
  fastcgi_temp_path ${dir};
  uwsgi_temp_path ${dir};
  scgi_temp_path ${dir};
  upstream backend { server 127.0.0.1:${upstreamPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_request_buffering off;
      proxy_buffering off;
    }
  }
}
`,
  );
  const child = spawn('nginx', ['-c', conf, '-p', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = createServer();
      socket.once('error', () => resolve(true));
      socket.listen(port, '127.0.0.1', () => socket.close(() => resolve(false)));
    });
    if (up) return { child, port, stop: stopper(child) };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`nginx did not start: ${await readFile(join(dir, 'nginx-error.log'), 'utf8').catch(() => '')}`);
}

/**
 * CPU time (user + system) of a process and its direct children (nginx's workers), in ms, from /proc: a process's
 * stat counts all its threads (Junction's worker threads too), but not live child processes.
 */
export async function treeCpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  let total = await cpuMs(pid);
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The parent pid is the second field after the parenthesised command name.
    if (stat !== '' && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) total += await cpuMs(Number(entry));
  }
  return total;
}

/** CPU time (user + system) a process has used so far, in ms, from /proc; NaN where /proc is not available. */
export async function cpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th, in clock ticks (100/s on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Resident set size of a process in MB, from /proc. */
export async function rssMb(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) / 1024;
}
