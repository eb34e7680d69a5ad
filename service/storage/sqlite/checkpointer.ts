/**
 * Write-ahead-log checkpoints off the main thread. SQLite's automatic checkpoint runs inside whichever commit
 * crosses the threshold, with its fsyncs: measured here, that made one commit in a hundred take 7-9 ms instead of
 * 0.3 ms, a stall of the whole proxy. So the service's connection never checkpoints; a worker thread with its own
 * connection runs a PASSIVE checkpoint (which waits for no reader or writer) every interval instead.
 */
import type { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import { startSqliteWorker } from './worker-script.js';
import type { CheckpointWorkerData, CheckpointWorkerMessage } from './checkpoint-worker.js';

/**
 * How often the worker checkpoints, by default. Measured on this 2-core machine at an even 1,000 requests/s
 * (docs/BENCHMARKS.md, "Checkpoints every 100 ms"): with one checkpoint a second, each one's fsyncs held the main
 * thread's next commit for 9–28 ms once a second (off-CPU stacks: the commit's own fsync of the restarted
 * write-ahead log's header, and its appends waiting on the inode the checkpoint was flushing), which set Junction's p99;
 * with 5 s or 10 s between checkpoints the stalls grew with the work (17–43 ms). Every 100 ms each checkpoint has a
 * tenth of a second's pages to write, the stalls vanish under the other noise (p99 3.7–5.0 ms against 9.8–36 ms),
 * and the CPU per request at full speed is unchanged. A PASSIVE checkpoint with nothing to copy costs microseconds.
 */
export const CHECKPOINT_INTERVAL_MS = 100;

export interface CheckpointerOptions {
  file: string;
  intervalMs: number;
  logger: Logger;
  /** Called when the worker cannot run, so the caller can fall back to SQLite's own checkpoints. */
  onFailure: () => void;
}

/** A worker thread that checkpoints `file` every `intervalMs`; `stop()` ends it. */
export class Checkpointer {
  readonly #worker: Worker;
  #stopped = false;

  constructor(options: CheckpointerOptions) {
    const data: CheckpointWorkerData = { file: options.file, intervalMs: options.intervalMs };
    this.#worker = startSqliteWorker('checkpoint-worker', data);
    // A checkpoint worker must never keep the service alive on its own.
    this.#worker.unref();
    this.#worker.on('message', (message: CheckpointWorkerMessage) => {
      if (message.type === 'error') options.logger.warn({ reason: message.message }, 'transaction log: a background checkpoint failed; the next one retries');
    });
    this.#worker.on('error', (err) => {
      if (this.#stopped) return;
      this.#stopped = true;
      options.logger.error({ err }, 'transaction log: the checkpoint worker stopped; SQLite checkpoints on commit instead');
      options.onFailure();
    });
  }

  /** Ends the worker after its current checkpoint, closing its connection. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const stopped = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.#worker.on('message', (message: CheckpointWorkerMessage) => {
        if (message.type !== 'stopped') return;
        clearTimeout(timer);
        resolve();
      });
      this.#worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.#worker.postMessage('stop');
    await stopped;
    await this.#worker.terminate();
  }
}

/** Stops the checkpoint worker, then checkpoints and truncates the write-ahead log and closes the connection. */
export async function closeWithCheckpoint(db: Database | null, checkpointer: Checkpointer | null, logger: Logger, what: string): Promise<void> {
  await checkpointer?.stop();
  if (db?.open !== true) return;
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (err) {
    // Every commit is already in the write-ahead log; the next open replays it.
    logger.warn({ err }, `${what}: final checkpoint failed`);
  }
  db.close();
}
