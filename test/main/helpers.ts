/** Shared by the shell's tests: a supervisor over a temp log folder, waiting for states, and checking pids are gone. */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LogFile } from '../../main/log-file.js';
import { Supervisor } from '../../main/supervisor.js';
import type { ServiceState, SupervisorOptions } from '../../main/supervisor.js';
import { tempDir } from '../helpers/junction.js';

export const FIXTURES = resolve('test/main/fixtures');

/** True once no process has this pid (kill(pid, 0) fails with ESRCH). */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw err;
  }
}

export interface TestSupervisor {
  supervisor: Supervisor;
  log: LogFile;
  dir: string;
  /** Every state the supervisor went through, in order. */
  states: ServiceState[];
  /** Resolves with the first state (from now on, or the current one) that `match` accepts. */
  waitFor(match: (state: ServiceState) => boolean, what: string, timeoutMs?: number): Promise<ServiceState>;
  /** The shell log's text so far. */
  logText(): Promise<string>;
  /** Pids the fixture recorded, one per start. */
  pids(): Promise<number[]>;
}

/** A supervisor running `entry` with plain Node, logging to a temp folder; `env` is all the child's environment. */
export async function testSupervisor(
  entry: string,
  env: Record<string, string>,
  options: Partial<Omit<SupervisorOptions, 'entry' | 'log' | 'env'>> = {},
): Promise<TestSupervisor> {
  const dir = await tempDir('junction-shell-');
  const log = new LogFile({ dir: join(dir, 'logs') });
  const pidsFile = join(dir, 'pids');
  const supervisor = new Supervisor({
    entry,
    execPath: process.execPath,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, FIXTURE_PIDS: pidsFile, ...env },
    log,
    ...options,
  });
  const states: ServiceState[] = [];
  supervisor.onChange((state) => states.push(state));
  const waitFor = (match: (state: ServiceState) => boolean, what: string, timeoutMs = 20_000) =>
    new Promise<ServiceState>((resolvePromise, reject) => {
      if (match(supervisor.state)) {
        resolvePromise(supervisor.state);
        return;
      }
      const timer = setTimeout(() => {
        off();
        reject(new Error(`timed out waiting for ${what}; states: ${states.map((s) => s.phase).join(' -> ')}`));
      }, timeoutMs);
      const off = supervisor.onChange((state) => {
        if (!match(state)) return;
        clearTimeout(timer);
        off();
        resolvePromise(state);
      });
    });
  return {
    supervisor,
    log,
    dir,
    states,
    waitFor,
    logText: () => readFile(log.path, 'utf8'),
    pids: async () => {
      const text = await readFile(pidsFile, 'utf8').catch(() => '');
      return text.split('\n').filter((line) => line !== '').map(Number);
    },
  };
}
