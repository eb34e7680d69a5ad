/**
 * The snapshot worker thread (snapshot.ts): `VACUUM INTO` from a read-only connection of its own, then one message
 * saying whether the copy was written.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What snapshot.ts passes the worker: the live database and where its copy goes (a file that must not exist). */
export interface SnapshotWorkerData {
  source: string;
  target: string;
}

export type SnapshotWorkerMessage = { ok: true } | { ok: false; message: string };

const port = parentPort;
if (port !== null) {
  const { source, target } = workerData as SnapshotWorkerData;
  const say = (message: SnapshotWorkerMessage): void => port.postMessage(message);
  let db: Database.Database | undefined;
  try {
    db = new Database(source, { fileMustExist: true, readonly: true });
    db.pragma('busy_timeout = 10000');
    db.prepare('VACUUM INTO ?').run(target);
    db.close();
    say({ ok: true });
  } catch (err) {
    try {
      db?.close();
    } catch {
      // The copy's failure is what is reported; a failed close adds nothing.
    }
    say({ ok: false, message: err instanceof Error ? err.message : String(err) });
  }
}
