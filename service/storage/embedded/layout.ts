/**
 * The embedded engines of one data folder, as the service lays them out: the NeDB collections, transactions.sqlite,
 * the body files with small bodies in bodies.sqlite, and audits.sqlite. The service's engine (index.ts) and the copy
 * into PostgreSQL (`junction migrate-to-postgres`, migrate/embedded-folder.ts) build the same layout from here.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { BodyFiles } from '../bodies/body-files.js';
import { createNedbStore } from '../nedb/index.js';
import type { Store } from '../store.js';
import type { StoreSnapshotter } from '../snapshots.js';
import { createSqliteAuditLog } from '../sqlite/audit-log.js';
import type { AuditLog } from '../audits.js';
import { SqliteBodyBlobs } from '../sqlite/body-blobs.js';
import { createSqliteTransactionLog } from '../sqlite/transaction-log.js';
import type { TransactionLog } from '../transactions.js';
import type { SearchIndex } from '../search-index.js';

/** The folder's files, by what keeps them. */
export const EMBEDDED_FILES = {
  transactions: 'transactions.sqlite',
  smallBodies: 'bodies.sqlite',
  bodies: 'bodies',
  audits: 'audits.sqlite',
  auditOutbox: 'audit-outbox.sqlite',
  refusals: 'refusals.sqlite',
  /** Where versions before the SQLite audit log kept audits (imported once, then renamed). */
  nedbAudits: 'audits.db',
} as const;

export interface EmbeddedLayoutOptions {
  dataDir: string;
  /** One logger, or one for each part. */
  logger: Logger | { store: Logger; transactions: Logger; audits: Logger };
  compactionIntervalMs?: number;
  metricsTimeZone?: string;
}

/** The folder's stores in the service's layout, built (nothing opened). */
export interface EmbeddedStores {
  store: Store & StoreSnapshotter;
  transactions: TransactionLog;
  /** Kept in the transaction log's file (sqlite/search-index.ts), opened and closed with it. */
  searchIndex: SearchIndex;
  bodies: BodyFiles;
  audits: AuditLog;
}

/** Builds the stores of `dataDir` without opening them. */
export function embeddedStores(options: EmbeddedLayoutOptions): EmbeddedStores {
  const { dataDir } = options;
  const loggers = 'store' in options.logger ? options.logger : { store: options.logger, transactions: options.logger, audits: options.logger };
  const store = createNedbStore({ dataDir, logger: loggers.store, ...(options.compactionIntervalMs === undefined ? {} : { compactionIntervalMs: options.compactionIntervalMs }) });
  const transactions = createSqliteTransactionLog({ file: join(dataDir, EMBEDDED_FILES.transactions), logger: loggers.transactions, ...(options.metricsTimeZone === undefined ? {} : { metricsTimeZone: options.metricsTimeZone }) });
  // Small bodies live in bodies.sqlite rather than one file each (see body-blobs.ts).
  const bodies = new BodyFiles(join(dataDir, EMBEDDED_FILES.bodies), new SqliteBodyBlobs({ file: join(dataDir, EMBEDDED_FILES.smallBodies), logger: loggers.transactions }));
  const audits = createSqliteAuditLog({ file: join(dataDir, EMBEDDED_FILES.audits), logger: loggers.audits });
  return { store, transactions, searchIndex: transactions.searchIndex, bodies, audits };
}
