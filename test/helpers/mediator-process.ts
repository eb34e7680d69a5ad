/** Runs the fixture mediator (test/mediators/fixtures/mediator.js) as a real child process and follows its reports. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

export interface MediatorReport {
  event: string;
  [key: string]: unknown;
}

export interface MediatorProcess {
  child: ChildProcess;
  reports: MediatorReport[];
  /** Resolves with the first report (from now on, or already seen after `from`) that matches. */
  next(match: (r: MediatorReport) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<MediatorReport>;
  send(line: string): void;
  stop(): Promise<void>;
}

export interface MediatorEnv {
  JUNCTION_API: string;
  JUNCTION_CA_FILE: string;
  MEDIATOR_USER: string;
  MEDIATOR_PASSWORD: string;
  MEDIATOR_URN: string;
  MEDIATOR_VERSION: string;
  UPSTREAM_URL: string;
  HEARTBEAT_MS?: string;
  CHANNEL_METHODS?: string;
}

export function runMediator(env: MediatorEnv): MediatorProcess {
  const child = spawn(process.execPath, ['test/mediators/fixtures/mediator.js'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const reports: MediatorReport[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') reports.push(JSON.parse(line) as MediatorReport);
    for (const wake of waiters) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    reports,
    next(match, options = {}) {
      const from = options.from ?? reports.length;
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = reports.slice(from).find(match);
          if (found === undefined) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`mediator report not seen; reports: ${JSON.stringify(reports)} stderr: ${stderr}`));
        }, options.timeoutMs ?? 10_000);
        if (!check()) waiters.add(check);
      });
    },
    send(line) {
      child.stdin.write(`${line}\n`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
