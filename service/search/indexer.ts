/**
 * The search indexer (issue 37): after transactions complete (never on the answer's path) it reads them from the
 * log's finished-transaction feed, extracts their keys and text (indexed-entry.ts) and writes them in batches with
 * the feed position in the same commit (`SearchIndex.write(entries, state)`), so a crash loses nothing and repeats
 * nothing that matters (a write replaces a transaction's entries). Transactions stored before indexing began, or
 * missed while the feed was trimmed, are covered by the backfill: a walk from the newest transaction back to the
 * oldest, a batch at a time, its progress (`backfillCovered` of `backfillTotal`) written with each batch, so a
 * restart resumes where it stood. It runs as a scheduled job, so on PostgreSQL one instance indexes at a time under
 * the job's lease. Logs carry counts and ids only: never a key or a word of a body.
 */
import type { Logger } from 'pino';
import type { Bodies } from '../storage/bodies/bodies.js';
import type { IndexedTransaction, SearchIndex, SearchIndexState } from '../storage/search-index.js';
import type { FinishedTransaction, TransactionLog, TransactionRecord } from '../storage/transactions.js';
import type { IndexableRecord, RecentFinished } from '../storage/recent-finished.js';
import type { ScheduledJob } from '../schedulers/registry.js';
import { indexedEntry } from './indexed-entry.js';

/** Transactions per batch by default: one commit of the index each, whose per-commit costs (a new FTS5 segment, the pages copied to the write-ahead log) a larger batch shares among more (session 18). */
const DEFAULT_BATCH = 500;

/** The job's name (its lease on PostgreSQL). */
export const SEARCH_INDEX_JOB = 'search-index';

/** How long the finished feed keeps entries (schedulers/retention.ts FINISHED_KEPT_MS): a gap near that age was trimmed. */
const FEED_KEPT_MS = 2 * 24 * 3_600_000;
/** Entries younger than this before the feed's trim horizon are taken as trimmed, not as a gap of a rolled-back write. */
const TRIM_MARGIN_MS = 6 * 3_600_000;

export interface IndexerOptions {
  log: Pick<TransactionLog, 'finishedAfter' | 'lastFinishedSeq' | 'get' | 'page' | 'estimatedCount'>;
  /** The records this instance just wrote, handed over from memory (storage/recent-finished.ts); absent: all read from the log. */
  recent?: Pick<RecentFinished, 'take'>;
  bodies: Pick<Bodies, 'readText'>;
  index: SearchIndex;
  /** `search.maxTextBytes`. */
  maxTextBytes: number;
  logger: Logger;
  /** Transactions per written batch: one commit of the index (larger ones cost less per transaction, see SqliteSearchIndex). */
  batchSize?: number;
  /** Bodies read at once within a batch. */
  readConcurrency?: number;
  /** Wall time one run spends on the backfill before it yields to the next tick (new transactions first). */
  backfillSliceMs?: number;
  /** Milliseconds between runs. */
  everyMs?: number;
  now?: () => number;
}

/** How this instance's indexer fares, beside the state stored with the index (which the API reads). */
export interface IndexerHealth {
  /** The last run's failure, in words without keys or bodies; cleared by the next run that succeeds. */
  lastError?: string;
  /** When the last run ended (ISO). */
  lastRunAt?: string;
}

const FRESH: SearchIndexState = { finishedSeq: 0, backfillBefore: null, backfillDone: false, backfillTotal: 0, backfillCovered: 0 };

/** True when nothing was ever indexed: neither the feed nor the walk back has started. */
export function isFresh(state: SearchIndexState): boolean {
  return state.finishedSeq === 0 && state.backfillBefore === null && !state.backfillDone && state.backfillTotal === 0 && state.backfillCovered === 0;
}

/** Newest first, as the log pages: is `record` strictly older than the cursor (time, then id)? */
export function olderThan(record: { _id: string; request: { timestamp: Date } }, cursor: { id: string; at: number }): boolean {
  const at = record.request.timestamp.getTime();
  return at < cursor.at || (at === cursor.at && record._id < cursor.id);
}

export class SearchIndexer {
  readonly #o: Required<Omit<IndexerOptions, 'now' | 'recent'>> & { now: () => number; recent: IndexerOptions['recent'] };
  #lastError: string | undefined;
  #lastRunAt: number | undefined;

  constructor(options: IndexerOptions) {
    this.#o = { batchSize: DEFAULT_BATCH, readConcurrency: 8, backfillSliceMs: 500, everyMs: 1000, now: Date.now, recent: undefined, ...options };
  }

  /** The job: every second, new transactions first, then a slice of the walk back. */
  job(): ScheduledJob {
    return { name: SEARCH_INDEX_JOB, everyMs: this.#o.everyMs, runAtStart: true, run: () => this.run() };
  }

  health(): IndexerHealth {
    return {
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
      ...(this.#lastRunAt === undefined ? {} : { lastRunAt: new Date(this.#lastRunAt).toISOString() }),
    };
  }

  /** One run; a failure is logged and the same work is tried again at the next tick. Never rejects. */
  async run(): Promise<void> {
    try {
      let state = await this.#o.index.state();
      if (isFresh(state)) state = await this.#begin();
      state = await this.#followFeed(state);
      if (!state.backfillDone) await this.#backfill(state);
      if (this.#lastError !== undefined) this.#o.logger.info('indexing for search works again');
      this.#lastError = undefined;
    } catch (err) {
      // The message of a store error names tables and paths, never indexed values; the stack is kept for the log only.
      const message = err instanceof Error ? err.message : String(err);
      // Once per kind of failure at warn: a database away for an hour would otherwise write a line every second.
      const level = message === this.#lastError ? 'debug' : 'warn';
      this.#lastError = message;
      this.#o.logger[level]({ err }, 'indexing for search failed; it is tried again at the next run');
    } finally {
      this.#lastRunAt = this.#o.now();
    }
  }

  /** The first run: new transactions from the feed's end, and a walk back over every one stored before. */
  async #begin(): Promise<SearchIndexState> {
    const finishedSeq = await this.#o.log.lastFinishedSeq();
    const backfillTotal = await this.#backfillTotal();
    const { entries, start } = await this.#walkStart();
    const state: SearchIndexState = { ...FRESH, finishedSeq, backfillTotal, ...start };
    await this.#o.index.write(entries, state);
    this.#o.logger.info({ transactions: backfillTotal }, 'search index started: indexing new transactions, and older ones in the background (the total is an estimate on a large log)');
    return state;
  }

  /** Restarts the walk back from the newest transaction (the feed lost entries the index never read). */
  async #restartBackfill(state: SearchIndexState, finishedSeq: number): Promise<SearchIndexState> {
    const backfillTotal = await this.#backfillTotal();
    const { entries, start } = await this.#walkStart();
    const next: SearchIndexState = { ...state, finishedSeq, backfillBefore: null, backfillDone: false, backfillTotal, backfillCovered: 0, ...start };
    await this.#o.index.write(entries, next);
    this.#o.logger.warn({ transactions: backfillTotal }, 'the finished-transaction feed was trimmed past the search index; walking back over older transactions again');
    return next;
  }

  /**
   * What the walk back has to cover, for its progress: the engine's estimate on a large log (counting 10,000,000 rows
   * takes seconds on either engine), exact on a small one. The progress never shows less than what was covered.
   */
  async #backfillTotal(): Promise<number> {
    return (await this.#o.log.estimatedCount()).count;
  }

  /**
   * Where a walk back begins once the feed position is taken: below the newest transaction stored now, indexed here
   * (in the same write as the state). Every transaction stored after it, and every one finishing from now, comes
   * through the feed; a walk from the top would index those a second time (two days of them after a trimmed feed).
   */
  async #walkStart(): Promise<{ entries: IndexedTransaction[]; start: Partial<SearchIndexState> }> {
    const [newest] = await this.#o.log.page({}, { limit: 1 });
    if (newest === undefined) return { entries: [], start: {} };
    return { entries: await this.#entries([newest]), start: { backfillBefore: newest._id, backfillCovered: 1 } };
  }

  async #followFeed(initial: SearchIndexState): Promise<SearchIndexState> {
    let state = initial;
    for (;;) {
      const finished = await this.#o.log.finishedAfter(state.finishedSeq, this.#o.batchSize);
      const first = finished[0];
      if (first === undefined) return state;
      if (first.seq > state.finishedSeq + 1 && this.#trimmedBefore(first)) {
        // The walk covers everything stored until now; the feed goes on from its end, so nothing is indexed twice.
        state = await this.#restartBackfill(state, await this.#o.log.lastFinishedSeq());
        continue;
      }
      const records = await this.#records(finished);
      const entries = await this.#entries(records);
      const finishedSeq = (finished[finished.length - 1] as FinishedTransaction).seq;
      await this.#o.index.write(entries, { finishedSeq });
      state = { ...state, finishedSeq };
      this.#o.logger.debug({ transactions: finished.length, indexed: entries.length, finishedSeq }, 'indexed finished transactions for search');
      if (finished.length < this.#o.batchSize) return state;
    }
  }

  /** A gap in the feed whose next entry is near the trim horizon: entries before it were dropped unread. */
  #trimmedBefore(entry: FinishedTransaction): boolean {
    return entry.at.getTime() < this.#o.now() - FEED_KEPT_MS + TRIM_MARGIN_MS;
  }

  /** The transactions the feed names (each once; one gone since is skipped): handed over from memory, else read. */
  async #records(finished: readonly FinishedTransaction[]): Promise<IndexableRecord[]> {
    const ids = [...new Set(finished.map((f) => f.id))];
    const recent = this.#o.recent;
    const records: (IndexableRecord | null)[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const kept = recent?.take(id);
      if (kept === undefined) missing.push(records.length);
      records.push(kept ?? null);
    }
    const read = await this.#mapLimited(missing, (i) => this.#o.log.get(ids[i] as string));
    missing.forEach((i, k) => (records[i] = read[k] ?? null));
    return records.filter((r): r is IndexableRecord => r !== null);
  }

  async #entries(records: readonly IndexableRecord[]): Promise<IndexedTransaction[]> {
    const reading = { bodies: this.#o.bodies, maxTextBytes: this.#o.maxTextBytes };
    const entries = await this.#mapLimited(records, (record) => indexedEntry(reading, record));
    return entries.filter((e): e is IndexedTransaction => e !== null);
  }

  /** `fn` over `items`, at most `readConcurrency` at once, in order. */
  async #mapLimited<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
    const out = new Array<R>(items.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#o.readConcurrency, items.length) }, worker));
    return out;
  }

  /** Batches of the walk back, for one slice of time. */
  async #backfill(initial: SearchIndexState): Promise<void> {
    const started = this.#o.now();
    let state = initial;
    // At least one batch a run, however short the slice.
    for (let first = true; !state.backfillDone && (first || this.#o.now() - started < this.#o.backfillSliceMs); first = false) {
      const batch = await this.#olderBatch(state.backfillBefore);
      if (batch.length === 0) {
        await this.#o.index.write([], { backfillDone: true, backfillCovered: Math.max(state.backfillCovered, state.backfillTotal) });
        this.#o.logger.info({ transactions: state.backfillCovered }, 'search index: older transactions all indexed');
        return;
      }
      const entries = await this.#entries(batch);
      const last = batch[batch.length - 1] as TransactionRecord;
      const covered = state.backfillCovered + batch.length;
      // The total was an estimate when the walk began; retention and new transactions move it, so it never shows less than covered.
      const next = { backfillBefore: last._id, backfillCovered: covered, backfillTotal: Math.max(state.backfillTotal, covered) };
      await this.#o.index.write(entries, next);
      state = { ...state, ...next };
    }
  }

  /** The next transactions older than the cursor (newest first); from the newest when there is none. */
  async #olderBatch(before: string | null): Promise<TransactionRecord[]> {
    const limit = this.#o.batchSize;
    if (before === null) return this.#o.log.page({}, { limit });
    const cursorRecord = await this.#o.log.get(before);
    // Gone (removed, or its day dropped): its id's second bounds it, ids within that second ordered as the log orders them.
    const cursor = { id: before, at: cursorRecord?.request.timestamp.getTime() ?? parseInt(before.slice(0, 8), 16) * 1000 + 999 };
    const out: TransactionRecord[] = [];
    // Transactions sharing the cursor's millisecond are read again and dropped; skip past them if a whole page is such.
    for (let skip = 0; out.length === 0; skip += limit) {
      const page = await this.#o.log.page({ to: new Date(cursor.at) }, { limit, skip });
      out.push(...page.filter((r) => olderThan(r, cursor)));
      if (page.length < limit) break;
    }
    return out;
  }
}
