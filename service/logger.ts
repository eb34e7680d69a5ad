/** Structured logs: JSON lines to stdout and to a size-rotated file in the data folder. */
import { join } from 'node:path';
import { once } from 'node:events';
import { pino } from 'pino';
import type { Logger, LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: LevelWithSilent;
  /** Folder for the rotating log file; omitted = stdout only. */
  fileDir?: string;
  maxSizeMB: number;
  maxFiles: number;
  /** Also write to stdout (off in tests that only want the file). */
  stdout?: boolean;
  /** How a failed destination is retried (tests shorten it). */
  retry?: LogRetry;
}

const CLOSE_TIMEOUT_MS = 3000;

export interface ServiceLogger {
  logger: Logger;
  /** Flushes and closes the log writers; call last during shutdown. */
  close(): Promise<void>;
  /** Log destinations failing now (a full disk), each said once to stderr; shown by `GET /health`. */
  problems(): string[];
}

// Whatever a handler logs, these never reach a log line.
const REDACT = [
  'password',
  '*.password',
  'newPassword',
  'adminPassword',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["auth-token"]',
  'res.headers["set-cookie"]',
];

/**
 * A stack's text with positions in the production bundle replaced by their places in the TypeScript sources, through
 * the function the bundle's entry publishes (scripts/bundle-service.ts); unchanged when not running from the bundle.
 * Only logged stacks are mapped: parsing the bundle's source map costs tens of MB and a pause, too much for the stacks
 * nobody reads.
 */
export function mapStackText(text: string): string {
  const map = (globalThis as Record<symbol, unknown>)[Symbol.for('junction.mapStack')];
  return typeof map === 'function' ? (map as (stack: string) => string)(text) : text;
}

/** pino's error serializer, with the stack mapped to the TypeScript sources. */
function serializeError(err: Error): ReturnType<typeof pino.stdSerializers.err> {
  const serialized = pino.stdSerializers.err(err);
  if (typeof serialized.stack === 'string') serialized.stack = mapStackText(serialized.stack);
  return serialized;
}

/** How a failed log destination is retried: the first wait, doubled up to the longest. */
export interface LogRetry {
  firstMs: number;
  maxMs: number;
  /** How long a restarted destination must write without failing before its problem is cleared. */
  healthyAfterMs: number;
}

const DEFAULT_RETRY: LogRetry = { firstMs: 1000, maxMs: 60_000, healthyAfterMs: 2000 };

type Transport = ReturnType<typeof pino.transport>;

/**
 * One log destination in its own worker thread (pino transports) that can fail without taking the process along.
 * A worker whose file write fails (ENOSPC) exits and its stream emits 'error' on every later write; unheard, that
 * error ends the process (issue 33). Here the first failure is reported once, to stderr and as a problem `/health`
 * shows, lines are dropped while it is down, and the worker is started again after a doubling wait; the problem is
 * cleared once a restarted worker has written for a while without failing.
 */
class RestartingDestination {
  readonly #name: string;
  readonly #target: pino.TransportSingleOptions;
  readonly #retry: LogRetry;
  #current: Transport | undefined;
  #problem: string | undefined;
  #waitMs: number;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(name: string, target: pino.TransportSingleOptions, retry: LogRetry) {
    this.#name = name;
    this.#target = target;
    this.#retry = retry;
    this.#waitMs = retry.firstMs;
    this.#start();
  }

  /** What is wrong with this destination now, or undefined when it works. */
  get problem(): string | undefined {
    return this.#problem;
  }

  write(line: string): boolean {
    const current = this.#current;
    if (current === undefined) return true;
    try {
      current.write(line);
    } catch (err) {
      this.#failed(current, err as Error);
    }
    return true;
  }

  flush(): void {
    try {
      this.#current?.flush(() => undefined);
    } catch {
      // A worker that has exited has nothing to flush; its failure was reported already.
    }
  }

  async close(timeoutMs: number): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const current = this.#current;
    this.#current = undefined;
    if (current === undefined) return;
    const closed = once(current, 'close').catch(() => undefined);
    current.end();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }

  #start(): void {
    if (this.#closed) return;
    const transport = pino.transport(this.#target);
    transport.on('error', (err: Error) => this.#failed(transport, err));
    this.#current = transport;
    if (this.#problem === undefined) return;
    transport.once('ready', () => {
      if (this.#current !== transport) return;
      // A line that must reach the file: on a disk still full it fails at once, and the wait goes on.
      transport.write(`${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, msg: `${this.#name}: writing again after a failure (${this.#problem ?? ''})` })}\n`);
      const healthy = setTimeout(() => {
        if (this.#current !== transport || this.#problem === undefined) return;
        process.stderr.write(`junction: ${this.#name} works again\n`);
        this.#problem = undefined;
        this.#waitMs = this.#retry.firstMs;
      }, this.#retry.healthyAfterMs);
      healthy.unref();
    });
  }

  #failed(transport: Transport, err: Error): void {
    if (transport !== this.#current || this.#closed) return;
    // The worker has exited or is broken; nothing more is sent to it.
    this.#current = undefined;
    if (this.#problem === undefined) {
      this.#problem = `${this.#name} failed: ${err.message}`;
      process.stderr.write(`junction: ${this.#problem}; log lines are dropped until it works again (retried, first in ${this.#waitMs} ms)\n`);
    }
    this.#timer = setTimeout(() => this.#start(), this.#waitMs);
    this.#timer.unref();
    this.#waitMs = Math.min(this.#waitMs * 2, this.#retry.maxMs);
  }
}

/** Creates the service logger; each writer runs in a worker thread so logging never blocks requests, nor ends the process. */
export function createLogger(options: LoggerOptions): ServiceLogger {
  const retry = options.retry ?? DEFAULT_RETRY;
  const destinations: { level: LevelWithSilent; stream: RestartingDestination }[] = [];
  if (options.level === 'silent' || (options.stdout === false && options.fileDir === undefined)) {
    const logger = pino({ level: 'silent' });
    return { logger, close: () => Promise.resolve(), problems: () => [] };
  }
  if (options.stdout !== false) destinations.push({ level: options.level, stream: new RestartingDestination('the stdout log', { target: 'pino/file', options: { destination: 1 } }, retry) });
  if (options.fileDir !== undefined) {
    const file = join(options.fileDir, 'junction');
    const target: pino.TransportSingleOptions = {
      target: 'pino-roll',
      options: {
        file,
        extension: '.log',
        size: `${options.maxSizeMB}m`,
        frequency: 'daily',
        dateFormat: 'yyyy-MM-dd',
        limit: { count: options.maxFiles, removeOtherLogFiles: true },
        mkdir: true,
      },
    };
    destinations.push({ level: options.level, stream: new RestartingDestination(`the log file (${options.fileDir})`, target, retry) });
  }
  const streams = pino.multistream(destinations.map(({ level, stream }) => ({ level: level as pino.Level, stream })));
  const logger = pino({ level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: { pid: process.pid }, serializers: { err: serializeError } }, streams);
  let closing: Promise<void> | undefined;
  return {
    logger,
    problems: () => destinations.flatMap(({ stream }) => (stream.problem === undefined ? [] : [stream.problem])),
    close() {
      closing ??= (async () => {
        for (const { stream } of destinations) stream.flush();
        // A stuck log worker must not hold shutdown hostage.
        await Promise.all(destinations.map(({ stream }) => stream.close(CLOSE_TIMEOUT_MS)));
      })();
      return closing;
    },
  };
}
