/**
 * Runs the service as a child process and keeps it running: waits for its ready message (with a timeout), restarts
 * it with backoff after a crash and at once when it exits asking for a restart (exit code 75, after `POST /restart`),
 * gives up after repeated crashes, and stops it cleanly (then forcefully) on quit.
 * No Electron imports: the shell passes Electron's own binary as `execPath`, tests pass plain Node.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { RestartExitCode, ServiceCertificateMessage, ServiceReadyMessage, ServiceStopMessage } from '../service/contracts/shell.js';
import { RestartPolicy } from './restart-policy.js';
import type { RestartPolicyOptions } from './restart-policy.js';
import { LineWriter } from './log-file.js';
import type { LogFile } from './log-file.js';

/** Where the service is in its life; the tray and the window show it. */
export type ServiceState =
  | { phase: 'idle' }
  | { phase: 'starting'; pid: number | null }
  | { phase: 'running'; pid: number; ready: ServiceReadyMessage }
  | { phase: 'restarting'; reason: string; delayMs: number; crashes: number }
  | { phase: 'failed'; reason: string }
  | { phase: 'stopping' }
  | { phase: 'stopped' };

export interface SupervisorOptions {
  /** The service's entry script, e.g. `<app>/dist/service/index.js`. */
  entry: string;
  args?: string[];
  /** Program that runs `entry`: Electron's own binary in the app (run as Node), plain Node in tests. */
  execPath?: string;
  execArgv?: string[];
  /** Environment of the child; `ELECTRON_RUN_AS_NODE=1` is always added. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  log: LogFile;
  /** A start that has not reported ready by then counts as a crash, and the child is stopped. */
  readyTimeoutMs?: number;
  /** A stop that has not finished by then is finished with SIGKILL. Above the service's own 15 s stop limit. */
  stopTimeoutMs?: number;
  restart?: Partial<RestartPolicyOptions>;
  /**
   * How to ask for a clean stop. Windows cannot deliver a catchable signal (kill() terminates at once), so there the
   * request goes over IPC; elsewhere SIGTERM, which also works when the IPC channel is gone.
   */
  stopVia?: 'signal' | 'message';
  /** Exit codes that mean "restarting will not help" (78 = the service's configuration error). */
  fatalExitCodes?: number[];
}

export const DEFAULT_READY_TIMEOUT_MS = 60_000;
export const DEFAULT_STOP_TIMEOUT_MS = 20_000;
const LAST_ERROR_LINES = 20;
const MAX_REASON_CHARS = 400;
const CLOSE_GRACE_MS = 1_000;
/** The service stopped cleanly because an admin asked for a restart (`POST /restart`): start it again at once. */
export const RESTART_EXIT_CODE: RestartExitCode = 75;

/** A service child and what the supervisor knows about it. */
interface Run {
  child: ChildProcess;
  exited: Promise<void>;
  /** Set when the supervisor decided this run failed (e.g. no ready in time) before the process ended. */
  failure: string | null;
  /** The last lines the child wrote to stderr, for the reason shown when it crashes. */
  errorLines: string[];
  readyTimer: NodeJS.Timeout | null;
  /** Set once a stop was requested, so a second request does not signal twice (the service exits at once then). */
  terminating: Promise<void> | null;
}

/** True when an IPC message from the child is its ready message. */
export function isReadyMessage(message: unknown): message is ServiceReadyMessage {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return (
    m.type === 'ready' &&
    typeof m.apiUrl === 'string' &&
    /^https?:\/\//.test(m.apiUrl) &&
    typeof m.version === 'string' &&
    (m.certificateFingerprint256 === null || typeof m.certificateFingerprint256 === 'string')
  );
}

/** True when an IPC message from the child says the API now serves another certificate. */
export function isCertificateMessage(message: unknown): message is ServiceCertificateMessage {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return m.type === 'certificate' && typeof m.certificateFingerprint256 === 'string' && /^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$/.test(m.certificateFingerprint256);
}

/** Words for how a process ended: "exited with code 1", "was ended by SIGKILL". */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) return `was ended by ${signal}`;
  return `exited with code ${code ?? 'unknown'}`;
}

/**
 * The gist of a child's last stderr lines, for a reason people read: stack frames, Node's version footer and blank
 * lines dropped, the last three remaining lines joined (a headline and its items, or an error and its message).
 */
export function summariseErrors(lines: readonly string[]): string {
  const meaningful = lines.filter((line) => !/^\s*$|^\s+at |^\s*\^+\s*$|^Node\.js v\d/.test(line));
  return meaningful
    .slice(-3)
    .map((line) => line.trim())
    .join(' ');
}

/** Keeps one service process running; see the file comment. */
export class Supervisor {
  readonly #options: SupervisorOptions & { readyTimeoutMs: number; stopTimeoutMs: number; stopVia: 'signal' | 'message' };
  readonly #policy: RestartPolicy;
  readonly #listeners = new Set<(state: ServiceState) => void>();
  #state: ServiceState = { phase: 'idle' };
  #run: Run | null = null;
  #restartTimer: NodeJS.Timeout | null = null;
  #stopping: Promise<void> | null = null;

  constructor(options: SupervisorOptions) {
    this.#options = {
      ...options,
      readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
      stopTimeoutMs: options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS,
      stopVia: options.stopVia ?? (process.platform === 'win32' ? 'message' : 'signal'),
    };
    this.#policy = new RestartPolicy(options.restart);
  }

  get state(): ServiceState {
    return this.#state;
  }

  /** Pid of the current service process, if one is running. */
  get pid(): number | null {
    return this.#run?.child.pid ?? null;
  }

  /** Calls `listener` on every state change; returns a function that stops the calls. */
  onChange(listener: (state: ServiceState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts the service (again, after a give-up or a stop). Does nothing while it is already up or starting. */
  start(): void {
    const { phase } = this.#state;
    if (phase !== 'idle' && phase !== 'failed' && phase !== 'stopped') return;
    this.#stopping = null;
    this.#policy.reset();
    this.#spawn();
  }

  /** Stops the service: a clean stop first, SIGKILL after the stop timeout. Resolves once the process is gone. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#clearRestartTimer();
    const run = this.#run;
    if (run === null) {
      this.#setState({ phase: 'stopped' });
      return;
    }
    this.#setState({ phase: 'stopping' });
    await this.#terminate(run);
    this.#event('the service is stopped');
    this.#setState({ phase: 'stopped' });
  }

  #spawn(): void {
    const { entry, args = [], execPath = process.execPath, execArgv = [], env = process.env, cwd, log } = this.#options;
    this.#event(`starting the service: ${execPath} ${entry}`);
    const child = fork(entry, args, {
      execPath,
      execArgv,
      cwd,
      env: { ...env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    let onExit: () => void = () => undefined;
    const run: Run = { child, exited: new Promise<void>((resolve) => (onExit = resolve)), failure: null, errorLines: [], readyTimer: null, terminating: null };
    this.#run = run;
    this.#setState({ phase: 'starting', pid: child.pid ?? null });

    const stdout = log.lineWriter('stdout');
    const stderr = log.lineWriter('stderr');
    // A second splitter only remembers the last stderr lines, for the reason shown after a crash.
    const lastErrors = new LineWriter((line) => {
      run.errorLines.push(line);
      if (run.errorLines.length > LAST_ERROR_LINES) run.errorLines.shift();
    });
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stdout?.on('end', () => stdout.flush());
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      lastErrors.push(chunk);
    });
    child.stderr?.on('end', () => {
      stderr.flush();
      lastErrors.flush();
    });
    child.on('message', (message: unknown) => this.#onMessage(run, message));

    let ended = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    const end = () => {
      if (ended) return;
      ended = true;
      if (run.readyTimer !== null) clearTimeout(run.readyTimer);
      run.readyTimer = null;
      onExit();
      this.#onEnd(run, exit?.code ?? null, exit === null ? null : describeExit(exit.code, exit.signal));
    };
    // 'close' comes once the output is fully read (so the last error line is known); a grandchild holding the pipes
    // open must not delay the restart for long, hence the grace period after 'exit'.
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      const grace = setTimeout(end, CLOSE_GRACE_MS);
      child.once('close', () => clearTimeout(grace));
    });
    child.once('close', end);
    child.on('error', (err) => {
      this.#event(`service process error: ${err.message}`);
      // Without a pid the process never started; 'close' follows without an 'exit'.
      if (child.pid === undefined) run.failure = `could not be started (${err.message})`;
    });

    run.readyTimer = setTimeout(() => {
      run.readyTimer = null;
      const seconds = this.#options.readyTimeoutMs / 1000;
      run.failure = `did not report ready within ${seconds} s`;
      this.#event(`the service ${run.failure}; stopping it`);
      void this.#terminate(run);
    }, this.#options.readyTimeoutMs);
  }

  #onMessage(run: Run, message: unknown): void {
    if (isCertificateMessage(message)) {
      // A new pin only for the API that is running and already pinned one (never over plain HTTP).
      const state = this.#state;
      if (run !== this.#run || state.phase !== 'running' || state.ready.certificateFingerprint256 === null) return;
      this.#event(`the service now serves the certificate ${message.certificateFingerprint256}`);
      this.#setState({ ...state, ready: { ...state.ready, certificateFingerprint256: message.certificateFingerprint256 } });
      return;
    }
    if (run !== this.#run || !isReadyMessage(message) || this.#state.phase !== 'starting') return;
    if (run.readyTimer !== null) clearTimeout(run.readyTimer);
    run.readyTimer = null;
    this.#event(`the service is ready at ${message.apiUrl} (version ${message.version}, pid ${run.child.pid ?? '?'})`);
    this.#setState({ phase: 'running', pid: run.child.pid ?? 0, ready: message });
  }

  #onEnd(run: Run, exitCode: number | null, exitDescription: string | null): void {
    if (run !== this.#run) return;
    this.#run = null;
    // No exit description when the process never started; then the spawn error (in run.failure) says what happened.
    const description = exitDescription ?? run.failure ?? 'ended';
    this.#event(`the service ${description}`);
    if (this.#stopping !== null) return;

    if (exitCode === RESTART_EXIT_CODE && run.failure === null) {
      // Asked for, not a crash: no backoff, and it does not count towards giving up.
      this.#event('the service asked to be restarted; starting it again');
      this.#spawn();
      return;
    }
    const summary = summariseErrors(run.errorLines);
    const detail = summary === '' ? '' : `: ${summary}`;
    if (exitCode !== null && (this.#options.fatalExitCodes ?? [78]).includes(exitCode)) {
      this.#fail(`The service cannot start${detail || ` (${description})`}`);
      return;
    }
    const what = run.failure ?? `stopped unexpectedly (${description})`;
    const decision = this.#policy.recordCrash(Date.now());
    if (decision.action === 'give-up') {
      const seconds = Math.round(this.#policy.options.windowMs / 1000);
      const times = decision.crashes === 1 ? 'once' : `${decision.crashes} times`;
      this.#fail(`The service ${what}, ${times} within ${seconds} s${detail}`);
      return;
    }
    this.#event(`restarting in ${decision.delayMs} ms (failure ${decision.crashes}; giving up at ${this.#policy.options.maxCrashes})`);
    this.#setState({ phase: 'restarting', reason: truncate(`The service ${what}${detail}`), delayMs: decision.delayMs, crashes: decision.crashes });
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      this.#spawn();
    }, decision.delayMs);
  }

  #fail(reason: string): void {
    const text = truncate(reason);
    this.#event(`giving up: ${text}`);
    this.#setState({ phase: 'failed', reason: text });
  }

  /** Asks `run` to stop, kills it after the stop timeout, and resolves when it has exited. */
  #terminate(run: Run): Promise<void> {
    run.terminating ??= this.#requestStop(run);
    return run.terminating;
  }

  async #requestStop(run: Run): Promise<void> {
    const { child } = run;
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      if (this.#options.stopVia === 'message' && child.connected) {
        this.#event(`asking the service (pid ${child.pid}) to stop with an IPC stop message`);
        const stop: ServiceStopMessage = { type: 'stop' };
        child.send(stop);
      } else {
        this.#event(`asking the service (pid ${child.pid}) to stop with SIGTERM`);
        child.kill('SIGTERM');
      }
      const timer = setTimeout(() => {
        this.#event(`the service did not stop within ${this.#options.stopTimeoutMs / 1000} s; killing it`);
        child.kill('SIGKILL');
      }, this.#options.stopTimeoutMs);
      await run.exited;
      clearTimeout(timer);
    }
    await run.exited;
  }

  #clearRestartTimer(): void {
    if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
  }

  #event(text: string): void {
    this.#options.log.write('shell', text);
  }

  #setState(state: ServiceState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener(state);
  }
}

function truncate(text: string): string {
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
}
