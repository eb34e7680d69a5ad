/**
 * The PostgreSQL transaction log, bodies and audit log the copy writes into. They are built by other changes of
 * issue 20; until they are merged this answers undefined and the command refuses before copying anything, since a
 * migration that left the transactions behind would look finished while it was not.
 */
import type { BodyTarget, InstallationStores } from '../storage/migrate-embedded.js';
import type { PostgresDatabase } from '../storage/postgres/index.js';

/** The log engines of a target, with how to open and close them. */
export interface LogTargets extends Pick<InstallationStores<BodyTarget>, 'transactions' | 'bodies' | 'audits'> {
  open(): Promise<void>;
  close(): Promise<void>;
}

/** The PostgreSQL log engines over `database`, or undefined while this build has none. */
export function postgresLogTargets(database: PostgresDatabase): LogTargets | undefined {
  void database;
  return undefined;
}
