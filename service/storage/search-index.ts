/**
 * The search index (issue 37) beside the transaction log: each transaction's clinical keys and the words of its
 * bodies, written by the indexer (service/search/) after the transaction completes, never a copy of the bodies.
 * Each engine keeps it in the log's own database, so removing transactions (one, a channel's, or whole days by
 * retention) removes their entries in the same write. Filters on it are part of `TransactionFilter` (`keys`,
 * `text`) and answered by the log's `page`, `count` and `stream`.
 */
import type { ClinicalKey } from '../domain/clinical/clinical-key.js';

/** One transaction's entries, replacing any it had. */
export interface IndexedTransaction {
  id: string;
  requestTimestamp: Date;
  channelID: string;
  keys: readonly ClinicalKey[];
  /** The words to find it by: its bodies' text, already capped; '' indexes keys only (no bodies stored or allowed). */
  text: string;
}

/** Where the indexer stands, written in the same commit as the entries it covers. */
export interface SearchIndexState {
  /** The finished-transaction feed position (`TransactionLog.finishedAfter`) indexed through. */
  finishedSeq: number;
  /** Walking back through transactions stored before indexing began: the id reached (exclusive), null before it starts. */
  backfillBefore: string | null;
  /** The walk back reached the oldest transaction. */
  backfillDone: boolean;
  /** Transactions the walk back has to cover in all (estimated when it started), for progress. */
  backfillTotal: number;
  /** Transactions the walk back has covered. */
  backfillCovered: number;
}

export interface SearchIndex {
  /** Stores the entries (each replacing that transaction's earlier ones) and, when given, the state, in one commit. */
  write(entries: readonly IndexedTransaction[], state?: Partial<SearchIndexState>): Promise<void>;
  /**
   * The searchable keys (patient ID, order number, control ID, message type) of these transactions as extracted, for
   * showing why each matched; a transaction without any is absent. The other keys extraction reads are not kept.
   */
  keysOf(ids: readonly string[]): Promise<Map<string, ClinicalKey[]>>;
  state(): Promise<SearchIndexState>;
  /** Drops the body words (keys stay) of one channel's transactions of the days before `day`: its bodies aged out. */
  removeChannelTextBefore(channelID: string, day: string): Promise<number>;
  /** How much it holds, for the status page and the benchmark. */
  stats(): Promise<{ transactions: number; keys: number; bytes: number | null }>;
}
