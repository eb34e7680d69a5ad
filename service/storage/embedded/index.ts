/**
 * The embedded engine: one instance on one data folder. The configuration in NeDB files, the transaction log, small
 * bodies and audits in SQLite files (layout.ts), large bodies as files; backups copy them all (snapshot.ts).
 */
import { join } from 'node:path';
import type { StorageContext, StorageEngine } from '../engine.js';
import { importNedbAudits } from '../import-nedb-audits.js';
import { SqliteAuditOutbox } from '../sqlite/audit-outbox.js';
import { SqliteRefusalLog } from '../sqlite/refusal-log.js';
import { EMBEDDED_FILES, embeddedStores } from './layout.js';
import { embeddedSnapshot } from './snapshot.js';

export interface EmbeddedSettings {
  dataDir: string;
  compactionIntervalMinutes: number;
}

/** The embedded engine's stores on `settings.dataDir`, built (nothing opened). */
export function createEmbeddedStorage(settings: EmbeddedSettings, context: StorageContext): StorageEngine {
  const { dataDir } = settings;
  const { logger } = context;
  const auditsLogger = logger.child({ component: 'audits' });
  const { store, transactions, searchIndex, bodies, audits } = embeddedStores({
    dataDir,
    logger: { store: logger.child({ component: 'store' }), transactions: logger.child({ component: 'transactions' }), audits: auditsLogger },
    compactionIntervalMs: settings.compactionIntervalMinutes * 60_000,
    metricsTimeZone: context.metricsTimeZone,
  });
  const refusals = new SqliteRefusalLog({ file: join(dataDir, EMBEDDED_FILES.refusals) });
  return {
    engine: 'embedded',
    store,
    transactions,
    bodies,
    audits,
    refusals,
    searchIndex,
    cluster: undefined,
    backup: { snapshot: embeddedSnapshot(dataDir, store) },
    refuseBelowFloor: true,
    // Alone, the engines' fixed default claims (storage/claims.ts).
    claimer: {},
    open: async () => {
      await transactions.open();
      await bodies.open();
      await audits.open();
      await refusals.open();
      await importNedbAudits({ file: join(dataDir, EMBEDDED_FILES.nedbAudits), audits, logger: auditsLogger });
      return { interrupted: await transactions.failInterrupted() };
    },
    auditOutbox: () => new SqliteAuditOutbox({ file: join(dataDir, EMBEDDED_FILES.auditOutbox) }),
    openKeystoreDocument: () => Promise.resolve(undefined),
    // No other instance ever writes here.
    finishDeadInstance: () => Promise.resolve(0),
    close: async () => {
      await refusals.close();
      await audits.close();
      await transactions.close();
      await bodies.close();
    },
  };
}
