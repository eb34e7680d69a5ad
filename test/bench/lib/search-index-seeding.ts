/**
 * What the search benchmark needs of the service to seed an index as the service would have written it: each
 * engine's `SearchIndex` opened on its own (its real write path), and an entry built from a transaction's bodies by
 * the service's extraction, as the indexer (service/search/) builds it.
 */
import { transactionKeys } from '../../../service/domain/clinical/extract.js';
import { pino } from 'pino';
import { PostgresDatabase } from '../../../service/storage/postgres/database.js';
import { createPostgresTransactionLog } from '../../../service/storage/postgres/transaction-log.js';
import { leadingBytes } from '../../../service/search/indexed-entry.js';
import type { IndexedTransaction, SearchIndex } from '../../../service/storage/search-index.js';
import { SearchTables } from '../../../service/storage/sqlite/search-index.js';
import type { Database as SqliteDatabase } from 'better-sqlite3';

/** `search.maxTextBytes`'s default: how much of each body goes into the full-text index. */
const MAX_TEXT_BYTES = 65_536;

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

/** The PostgreSQL tables of the index (migration 10, storage/postgres/search-schema.ts). */
export const POSTGRES_INDEX_TABLES: string[] = ['search_keys', 'search_docs', 'search_state'];

/** The entry the indexer writes for a transaction whose bodies are both stored (service/search/indexed-entry.ts). */
export function extractEntry(tx: BodiesOf): IndexedTransaction {
  const bodies = [
    { text: tx.request, part: 'request' as const },
    { text: tx.response, part: 'response' as const },
  ];
  return {
    id: tx.id,
    requestTimestamp: tx.requestTimestamp,
    channelID: tx.channelID,
    keys: transactionKeys(bodies),
    text: bodies.map((b) => leadingBytes(b.text, MAX_TEXT_BYTES)).join('\n').trim(),
  };
}

/**
 * The embedded engine's search tables on a connection of the seeder's own (the log's schema already created): the
 * statements the log's indexer runs, without the group commit's 50-entry chunks, so a seeding batch commits once.
 */
export function sqliteSearchTables(db: SqliteDatabase): SearchTables {
  return new SearchTables(db);
}

/** The engine's index on the database at `url`, through the log that owns it (its pool; the schema migrated). */
export async function openPostgresSearchIndex(url: string): Promise<SearchIndex & { close(): Promise<void> }> {
  const settings = { url, host: '', port: 0, database: '', user: '', poolSize: 2, tls: { enabled: false, caFile: '' } };
  const logger = pino({ level: 'silent' });
  const log = createPostgresTransactionLog({ database: new PostgresDatabase({ settings, logger }), logger, instanceId: 'bench-seed' });
  await log.open();
  const index = log.searchIndex;
  return {
    write: (entries, state) => index.write(entries, state),
    keysOf: (ids) => index.keysOf(ids),
    state: () => index.state(),
    removeChannelTextBefore: (channelID, day) => index.removeChannelTextBefore(channelID, day),
    stats: () => index.stats(),
    close: () => log.close(),
  };
}
