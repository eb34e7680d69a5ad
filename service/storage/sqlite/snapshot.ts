/**
 * A consistent copy of a live SQLite database, for backups. `VACUUM INTO` runs in one read transaction on a
 * connection of its own: in WAL mode that never blocks the service's writers, and the copy is the database as of the
 * moment the transaction began. The online backup API (`db.backup`) was the other candidate, but from a second
 * connection it restarts whenever the service commits, so under steady traffic it would never finish; on the
 * service's own connection each step runs on the event loop and stalls the proxy. The statement is synchronous in
 * better-sqlite3, so it runs in a worker thread: the service's event loop keeps serving while the copy is written.
 */
import { startSqliteWorker } from './worker-script.js';
import type { SnapshotWorkerData, SnapshotWorkerMessage } from './snapshot-worker.js';

/** Writes a consistent copy of the SQLite database `source` to `target` (which must not exist) without blocking writers. */
export function snapshotSqlite(source: string, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const data: SnapshotWorkerData = { source, target };
    const worker = startSqliteWorker('snapshot-worker', data);
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (err === undefined) resolve();
      else reject(err);
    };
    worker.once('message', (message: SnapshotWorkerMessage) => {
      settle(message.ok ? undefined : new Error(`cannot copy ${source}: ${message.message}`));
    });
    worker.once('error', (err) => settle(new Error(`cannot copy ${source}: ${err.message}`, { cause: err })));
    // A worker that ends without a word (killed, out of memory) must not leave the backup waiting.
    worker.once('exit', (code) => settle(new Error(`cannot copy ${source}: the copying thread stopped (exit code ${code})`)));
  });
}
