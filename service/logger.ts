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
  const logger = pino({ level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: { pid: process.pid }, serializers: { err: serializeError } }, transport);
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
