/** Runs the built service (dist/service/index.js) as a real child process, as `npm start` and the shell do. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

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
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Environment for a service process on loopback: free ports for the API (plain HTTP) and both transaction ports,
 * the given data folder and admin password, and no log file.
 */
export async function loopbackServiceEnv(dataDir: string, adminPassword: string): Promise<Record<string, string> & { JUNCTION_API_PORT: string; JUNCTION_ROUTER_HTTP_PORT: string; JUNCTION_ADMIN_PASSWORD: string }> {
  return {
    JUNCTION_DATA_DIR: dataDir,
    JUNCTION_API_PORT: String(await freePort()),
    JUNCTION_API_HOST: '127.0.0.1',
    JUNCTION_API_PROTOCOL: 'http',
    JUNCTION_ROUTER_HOST: '127.0.0.1',
    JUNCTION_ROUTER_HTTP_PORT: String(await freePort()),
    JUNCTION_ROUTER_HTTPS_PORT: String(await freePort()),
    JUNCTION_ADMIN_PASSWORD: adminPassword,
    JUNCTION_LOGGING_FILE_ENABLED: 'false',
  };
}

export function runService(args: string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ['dist/service/index.js', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
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
