/**
 * What the search benchmark needs of the service to seed an index as the service would have written it: each
 * engine's `SearchIndex` opened on its own (its real write path), and an entry built from a transaction's bodies by
 * the service's extraction, as the indexer (service/search/) builds it.
 */
import type { IndexedTransaction, SearchIndex } from '../../../service/storage/search-index.js';

/** A transaction as the indexer reads it: its ids and its two bodies' text. */
export interface BodiesOf {
  id: string;
  requestTimestamp: Date;
  channelID: string;
  request: string;
  response: string;
  contentType: string;
}

/** Tables of transactions.sqlite that are the log's, not the index's (what the index's size leaves out). */
export const SQLITE_LOG_TABLES: ReadonlySet<string> = new Set([
  'transactions', 'tx_time', 'tx_channel_time', 'tx_status_time', 'tx_client_time', 'days', 'metrics', 'finished', 'finished_at',
  'sqlite_schema', 'sqlite_sequence', 'sqlite_autoindex_transactions_1', 'sqlite_autoindex_days_1', 'sqlite_autoindex_metrics_1',
]);

/** The PostgreSQL tables of the index. */
export const POSTGRES_INDEX_TABLES: string[] = [];

export function extractEntry(tx: BodiesOf): IndexedTransaction {
  void tx;
  throw new Error('not bound yet: the extraction lands with wt/extract');
}

export function openSqliteSearchIndex(file: string): Promise<SearchIndex & { close(): Promise<void> }> {
  void file;
  return Promise.reject(new Error('not bound yet: the SQLite index lands with wt/search-sqlite'));
}

export function openPostgresSearchIndex(url: string): Promise<SearchIndex & { close(): Promise<void> }> {
  void url;
  return Promise.reject(new Error('not bound yet: the PostgreSQL index lands with wt/search-pg'));
}
