/**
 * A background read of every page of the transaction log, in small paced steps, to give early warning of a damaged
 * file. The log no longer runs `PRAGMA quick_check` at open (it read all 11.7 GB of a 10,000,000-transaction log, 112
 * s, issue 19), and a single quick_check cannot run off the main thread safely: better-sqlite3 cannot interrupt a
 * statement, and a worker thread inside one long native call holds up the process's exit until it returns (measured:
 * `process.exit` waited the whole query out).
 *
 * So a worker thread walks the table in rowid order and each index in key order, a window of entries per statement
 * (a few ms each), with a pause between statements and the thread at the lowest CPU priority: every b-tree page and overflow
 * page is read and parsed by SQLite, which fails the step with SQLITE_CORRUPT on a malformed one. It is less than
 * quick_check (it does not compare the free list or page counts), but finds the damage that would otherwise surface
 * as a failed page or export. Each step is its own read transaction, so checkpoints are never held back for long.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { startSqliteWorker } from './worker-script.js';
import type { ScanWalk, ScanWorkerData, ScanWorkerMessage } from './integrity-scan-worker.js';

/**
 * The walks: `first` reads the first window in key order, `next` the window after the key of the last row read (its
 * first `key` columns), so every statement is a seek, never a scan from the start.
 */
type Walk = ScanWalk;

/** A walk of `columns` (the key first) through `source` in key order; `where` narrows a partial index. */
function walk(label: string, source: string, key: string[], extra: string[] = [], where = '', share = 1): Walk {
  const columns = [...key, ...extra].join(', ');
  const order = key.join(', ');
  const after = key.length === 1 ? `${key[0]} > ?` : `(${order}) > (${key.map(() => '?').join(', ')})`;
  return {
    label,
    first: `SELECT ${columns} FROM ${source} ${where === '' ? '' : `WHERE ${where} `}ORDER BY ${order} LIMIT ?`,
    next: `SELECT ${columns} FROM ${source} WHERE ${where === '' ? '' : `${where} AND `}${after} ORDER BY ${order} LIMIT ?`,
    key: key.length,
    share,
  };
}

const WALKS: Walk[] = [
  // length(doc) makes SQLite read each row whole, overflow pages included.
  walk('transactions', 'transactions', ['rowid'], ['length(doc)'], '', 0.1),
  walk('tx_time', 'transactions INDEXED BY tx_time', ['ts', 'id', 'rowid']),
  walk('tx_channel_time', 'transactions INDEXED BY tx_channel_time', ['channel', 'ts', 'rowid']),
  walk('tx_status_time', 'transactions INDEXED BY tx_status_time', ['status', 'ts', 'rowid']),
  walk('tx_client_time', 'transactions INDEXED BY tx_client_time', ['client', 'ts', 'rowid'], [], 'client IS NOT NULL'),
  walk('transaction ids', 'transactions INDEXED BY sqlite_autoindex_transactions_1', ['id', 'rowid']),
  walk('days', 'days', ['day']),
  walk('metrics', 'metrics', ['period', 'start', 'channel'], ['requests']),
  walk('finished', 'finished', ['seq'], ['id']),
  walk('finished_at', 'finished INDEXED BY finished_at', ['at', 'rowid']),
  // The search index (search-index.ts), created by the log's open before any scan starts.
  walk('search_docs', 'search_docs', ['docid'], ['length(keys)'], '', 0.5),
  walk('search doc ids', 'search_docs INDEXED BY sqlite_autoindex_search_docs_1', ['id', 'docid']),
  walk('search_docs_text', 'search_docs INDEXED BY search_docs_text', ['channel', 'ts', 'docid'], [], 'has_text = 1'),
  walk('search key terms', 'search_terms_data', ['id'], ['length(block)'], '', 0.1),
  walk('search key term index', 'search_terms_idx', ['segid', 'term']),
  walk('search key term sizes', 'search_terms_docsize', ['id']),
  walk('search words', 'search_text_data', ['id'], ['length(block)'], '', 0.1),
  walk('search word terms', 'search_text_idx', ['segid', 'term']),
  walk('search word sizes', 'search_text_docsize', ['id']),
];

/** What a finished scan found. */
export type IntegrityOutcome = { ok: true; entries: number; ms: number } | { ok: false; entries: number; ms: number; reason: string; code?: string } | { stopped: true };

export interface IntegrityScanOptions {
  file: string;
  logger: Logger;
  /** Entries one statement reads. */
  window?: number;
  /** Pause between two statements, in ms. */
  pauseMs?: number;
}

/**
 * Index entries per statement (rows of the table: a tenth), about 100–250 KB of pages each, so that with PAUSE_MS
 * between statements the reads are paced too (the CPU priority does not pace them): measured on the bench's
 * 300,000-transaction log (352 MB) at a load of 13, 53 s and 1.7 s of CPU, about 7 MB/s; a 10,000,000-transaction log
 * (11.7 GB) would take about half an hour.
 */
const WINDOW = 2000;
/** Pause between statements. */
const PAUSE_MS = 20;

/** Starts a paced scan of `file` in a worker thread; `outcome` settles when it ends, `stop()` ends it early. */
export class IntegrityScan {
  readonly outcome: Promise<IntegrityOutcome>;
  readonly #worker: Worker;

  constructor(options: IntegrityScanOptions) {
    const started = performance.now();
    const data: ScanWorkerData = { file: options.file, walks: WALKS, window: options.window ?? WINDOW, pauseMs: options.pauseMs ?? PAUSE_MS };
    this.#worker = startSqliteWorker('integrity-scan-worker', data);
    // A background check must never keep the service alive on its own.
    this.#worker.unref();
    const { logger } = options;
    this.outcome = new Promise<IntegrityOutcome>((resolve) => {
      this.#worker.once('message', (message: ScanWorkerMessage) => {
        const ms = Math.round(performance.now() - started);
        if (message.type === 'stopped') return resolve({ stopped: true });
        const entries = message.entries;
        if (message.ok) {
          logger.info({ file: options.file, entries, ms }, 'transaction log: background integrity scan read every page without error');
          return resolve({ ok: true, entries, ms });
        }
        const reason = message.reason;
        logger.error(
          { file: options.file, entries, ms, reason, code: message.code },
          'transaction log: the background integrity scan found a damaged page; back the data folder up now, and restore transactions.sqlite from a backup or move it aside',
        );
        resolve({ ok: false, entries, ms, reason, ...(message.code === undefined ? {} : { code: message.code }) });
      });
      this.#worker.once('exit', () => resolve({ stopped: true }));
      this.#worker.once('error', (err) => {
        logger.warn({ err }, 'transaction log: the background integrity scan could not run');
        resolve({ ok: false, entries: 0, ms: Math.round(performance.now() - started), reason: err.message });
      });
    });
  }

  /** Ends the scan at its next pause (each statement is short) and waits for the worker to go. */
  async stop(): Promise<void> {
    this.#worker.postMessage('stop');
    await Promise.race([this.outcome, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    await this.#worker.terminate();
  }
}
