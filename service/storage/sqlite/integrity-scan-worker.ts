/**
 * The integrity scan's worker thread (integrity-scan.ts): walks the table and each index a window of entries per
 * statement, pausing between statements at the lowest CPU priority, and answers once with what it read or the first
 * error SQLite raised. A 'stop' message ends it at its next pause.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** One walk's statements (integrity-scan.ts builds them): the first window, and the window after a row's key. */
export interface ScanWalk {
  label: string;
  first: string;
  next: string;
  /** How many leading columns of a row are its key, the parameters of `next`. */
  key: number;
  /** Entries one statement reads, as a share of the window: rows of the table are 20–30 times an index entry. */
  share: number;
}

export interface ScanWorkerData {
  file: string;
  walks: ScanWalk[];
  window: number;
  pauseMs: number;
}

export type ScanWorkerMessage = { type: 'stopped' } | { type: 'done'; ok: true; entries: number } | { type: 'done'; ok: false; entries: number; reason: string; code?: string };

const port = parentPort;
if (port !== null) {
  const data = workerData as ScanWorkerData;
  try {
    // On Linux a thread's nice value is its own: this puts only the scan at the back of the CPU queue.
    setPriority(0, 19);
  } catch {
    // Not allowed or not supported: the pauses still pace it.
  }
  let stopping = false;
  let wake: (() => void) | null = null;
  port.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    stopping = true;
    wake?.();
  });
  const pause = (): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, data.pauseMs);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  const failure = (entries: number, err: unknown): ScanWorkerMessage => {
    const code = (err as { code?: unknown } | null)?.code;
    return { type: 'done', ok: false, entries, reason: err instanceof Error ? err.message : String(err), ...(typeof code === 'string' ? { code } : {}) };
  };
  const scan = async (): Promise<ScanWorkerMessage> => {
    const db = new Database(data.file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 1000');
    // The scan's reads must not push the pages the service uses out of a shared cache: this connection keeps few.
    db.pragma('cache_size = -2048');
    let entries = 0;
    try {
      for (const { first, next, key, share } of data.walks) {
        const start = db.prepare<[number], unknown[]>(first).raw(true);
        const more = db.prepare<unknown[], unknown[]>(next).raw(true);
        const window = Math.max(1, Math.round(data.window * share));
        let rows = start.all(window);
        for (;;) {
          entries += rows.length;
          if (rows.length < window) break;
          await pause();
          if (stopping) return { type: 'stopped' };
          rows = more.all(...(rows[rows.length - 1] ?? []).slice(0, key), window);
        }
        await pause();
        if (stopping) return { type: 'stopped' };
      }
      return { type: 'done', ok: true, entries };
    } catch (err) {
      return failure(entries, err);
    } finally {
      db.close();
    }
  };
  scan().then(
    (outcome) => port.postMessage(outcome),
    (err: unknown) => port.postMessage(failure(0, err)),
  );
}
