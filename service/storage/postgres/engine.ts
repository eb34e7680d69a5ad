/**
 * The PostgreSQL engine as the service opens it: every store over one shared pool, each transaction row naming this
 * instance, the cluster's parts (cluster.ts), the keystore's shared row, and the shared audit outbox.
 */
import type { StorageContext, StorageEngine } from '../engine.js';
import { createPostgresAuditLog } from './audit-log.js';
import { PostgresAuditOutbox } from './audit-outbox.js';
import { createPostgresBodies } from './bodies.js';
import { postgresClusterBackend } from './cluster.js';
import type { PostgresSettings } from './connection.js';
import { PostgresDatabase } from './database.js';
import { PostgresKeystoreDocument } from './keystore-document.js';
import { createPostgresStore } from './postgres-store.js';
import { PostgresRefusalLog } from './refusal-log.js';
import { createPostgresTransactionLog } from './transaction-log.js';

/** Why Junction's own backups are refused on this engine, as the API answers it. */
export const POSTGRES_BACKUP_UNAVAILABLE =
  "Junction's own backups copy the embedded engine's files; this installation keeps its data in PostgreSQL, so back up that database with PostgreSQL's tools (pg_dump, or a replica) and keep each instance's keystore secret file";

/** The PostgreSQL engine's stores on the database `settings` names, built (nothing connects until opened). */
export function createPostgresStorage(settings: PostgresSettings, context: StorageContext): StorageEngine {
  const { logger, instanceId } = context;
  const database = new PostgresDatabase({ settings, logger: logger.child({ component: 'postgres' }) });
  // Every row names the instance that wrote it, so a survivor finishes only a dead instance's Processing rows.
  const transactions = createPostgresTransactionLog({ database, logger: logger.child({ component: 'transactions' }), instanceId,
    metricsTimeZone: context.metricsTimeZone,
    ...(settings.commitWindowMs === undefined ? {} : { commitWindowMs: settings.commitWindowMs }),
  });
  const bodies = createPostgresBodies(database);
  const audits = createPostgresAuditLog({ database });
  const refusals = new PostgresRefusalLog(database);
  let keystoreDocument: PostgresKeystoreDocument | undefined;
  return {
    engine: 'postgres',
    store: createPostgresStore(database),
    transactions,
    bodies,
    audits,
    refusals,
    searchIndex: transactions.searchIndex,
    cluster: postgresClusterBackend(database),
    backup: { unavailable: POSTGRES_BACKUP_UNAVAILABLE },
    // The transactions are not written to this disk, so its space does not stop them.
    refuseBelowFloor: false,
    claimer: { instance: instanceId },
    open: async () => {
      await transactions.open();
      await bodies.open();
      await audits.open();
      await refusals.open();
      return { interrupted: await transactions.failInterrupted() };
    },
    // One queue for every instance, each message claimed by one sender.
    auditOutbox: () => new PostgresAuditOutbox({ database, instance: instanceId }),
    openKeystoreDocument: async () => {
      if (keystoreDocument === undefined) {
        const opening = new PostgresKeystoreDocument(database);
        await opening.open();
        keystoreDocument = opening;
      }
      return keystoreDocument;
    },
    finishDeadInstance: (id) => transactions.failInterruptedOf(id),
    close: async () => {
      await keystoreDocument?.close();
      await refusals.close();
      await audits.close();
      await transactions.close();
      await bodies.close();
    },
  };
}

