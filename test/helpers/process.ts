/**
 * The one launcher of real Junction service processes, for the process tests, the console (e2e) tests and the
 * benchmarks: free loopback ports, the child's environment, and the built service (dist/service/index.js) run as
 * `npm start` runs it. The benchmarks import it from dist/, so it stays plain Node with no test framework.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';

export interface ServiceProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the parsed log line that says the service is ready. */
  ready: Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * `count` different ports on 127.0.0.1 that nothing listened on a moment ago. All are held open until the last is
 * found: freeing each before asking for the next can get the same port twice (a CI run saw the HTTP and HTTPS
 * transaction ports given one port).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))));
  }
}

/** The listeners of a service process: the API and both transaction ports, each on 127.0.0.1 and a free port. */
export async function loopbackListeners(): Promise<{
  JUNCTION_API_HOST: string;
  JUNCTION_API_PORT: string;
  JUNCTION_ROUTER_HOST: string;
  JUNCTION_ROUTER_HTTP_PORT: string;
  JUNCTION_ROUTER_HTTPS_PORT: string;
}> {
  const [api, http, https] = await freePorts(3);
  return {
    JUNCTION_API_HOST: '127.0.0.1',
    JUNCTION_API_PORT: String(api),
    JUNCTION_ROUTER_HOST: '127.0.0.1',
    JUNCTION_ROUTER_HTTP_PORT: String(http),
    JUNCTION_ROUTER_HTTPS_PORT: String(https),
  };
}

/**
 * Environment for a service process on loopback: free ports for the API (plain HTTP) and both transaction ports,
 * the given data folder and admin password, and no log file.
 */
export async function loopbackServiceEnv(dataDir: string, adminPassword: string): Promise<Record<string, string> & { JUNCTION_API_PORT: string; JUNCTION_ROUTER_HTTP_PORT: string; JUNCTION_ADMIN_PASSWORD: string }> {
  return {
    JUNCTION_DATA_DIR: dataDir,
    ...(await loopbackListeners()),
    JUNCTION_API_PROTOCOL: 'http',
    JUNCTION_ADMIN_PASSWORD: adminPassword,
    JUNCTION_LOGGING_FILE_ENABLED: 'false',
  };
}

/**
 * A child process's whole environment: `env` with only PATH and HOME taken from ours, so a developer's own
 * JUNCTION_* variables never reach the service under test.
 */
export function childEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env };
}

/** Runs the built service with `args` and exactly `env` (see childEnv), following its output until it exits. */
export function runService(args: string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ['dist/service/index.js', ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      for (const line of out.split('\n')) {
        if (!line.includes('Junction is ready')) continue;
        try {
          resolve(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // a partial line; wait for the rest
        }
      }
    });
    void exited.then(({ code }) => reject(new Error(`service exited (${code}) before ready: ${err}`)));
  });
  ready.catch(() => undefined);
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return { child, stdout: () => out, stderr: () => err, ready, exited };
}
