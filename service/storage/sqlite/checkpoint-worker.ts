/**
 * The checkpoint worker thread (checkpointer.ts): its own connection to the database, a PASSIVE checkpoint every
 * interval, failures reported to the main thread (the next interval retries), and a clean close on 'stop'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What the checkpointer passes the worker. */
export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
}

/** What the worker says: ready once open, each failed checkpoint, stopped once closed. */
export type CheckpointWorkerMessage = { type: 'ready' } | { type: 'error'; message: string } | { type: 'stopped' };

const port = parentPort;
if (port !== null) {
  const { file, intervalMs } = workerData as CheckpointWorkerData;
  const say = (message: CheckpointWorkerMessage): void => port.postMessage(message);
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 1000');
  const timer = setInterval(() => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch (err) {
      say({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    }
  }, intervalMs);
  port.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    clearInterval(timer);
    db.close();
    say({ type: 'stopped' });
  });
  say({ type: 'ready' });
}
