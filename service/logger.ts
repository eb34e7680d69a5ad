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
}

const CLOSE_TIMEOUT_MS = 3000;

export interface ServiceLogger {
  logger: Logger;
  /** Flushes and closes the log writers; call last during shutdown. */
  close(): Promise<void>;
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

/** Creates the service logger; the file writer runs in a worker thread so logging never blocks requests. */
export function createLogger(options: LoggerOptions): ServiceLogger {
  const targets: pino.TransportTargetOptions[] = [];
  if (options.stdout !== false) targets.push({ target: 'pino/file', level: options.level, options: { destination: 1 } });
  if (options.fileDir !== undefined) {
    targets.push({
      target: 'pino-roll',
      level: options.level,
      options: {
        file: join(options.fileDir, 'junction'),
        extension: '.log',
        size: `${options.maxSizeMB}m`,
        frequency: 'daily',
        dateFormat: 'yyyy-MM-dd',
        limit: { count: options.maxFiles, removeOtherLogFiles: true },
        mkdir: true,
      },
    });
  }
  if (targets.length === 0 || options.level === 'silent') {
    const logger = pino({ level: 'silent' });
    return { logger, close: () => Promise.resolve() };
  }
  const transport = pino.transport({ targets });
  const logger = pino({ level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: { pid: process.pid } }, transport);
  let closing: Promise<void> | undefined;
  return {
    logger,
    close() {
      closing ??= (async () => {
        logger.flush();
        const closed = once(transport, 'close');
        transport.end();
        // A stuck log worker must not hold shutdown hostage.
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS).unref())]);
      })();
      return closing;
    },
  };
}
