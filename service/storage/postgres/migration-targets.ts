/** The PostgreSQL transaction log, bodies and audit log a migration copies into, opened and closed together. */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { BodyTarget, InstallationStores } from '../migrate-embedded.js';
import { createPostgresAuditLog } from './audit-log.js';
import { createPostgresBodies } from './bodies.js';
import { createPostgresTransactionLog } from './transaction-log.js';
import type { PostgresDatabase } from './database.js';

/** The log engines of a target, with how to open and close them. */
export interface LogTargets extends Pick<InstallationStores<BodyTarget>, 'transactions' | 'bodies' | 'audits'> {
  open(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The PostgreSQL log engines over `database`. The copy writes as an instance of its own (a fresh id), so no running
 * instance's recovery ever takes the copied rows for its own.
 */
export function postgresLogTargets(database: PostgresDatabase, logger: Logger): LogTargets {
  const transactions = createPostgresTransactionLog({ database, logger, instanceId: `migrate-${randomUUID()}` });
  const bodies = createPostgresBodies(database);
  const audits = createPostgresAuditLog({ database });
  return {
    transactions,
    bodies,
    audits,
    open: async () => {
      await transactions.open();
      await bodies.open();
      await audits.open();
    },
    close: async () => {
      await audits.close();
      await bodies.close();
      await transactions.close();
    },
  };
}
