/** Turning PostgreSQL's errors into `StoreError`s. */
import { StoreError } from '../store.js';

/** The database's schema was migrated by a newer Junction than this one; running on it could corrupt its data. */
export class SchemaTooNewError extends StoreError {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `The PostgreSQL database is at schema version ${found}, but this Junction knows versions up to ${known} only: ` +
        'a newer Junction has migrated it. Upgrade this instance to that version (or newer) instead of running it on this database.',
    );
  }
}

/** The fields of a `pg` DatabaseError this engine reads. */
interface PgError extends Error {
  code?: string;
  constraint?: string;
}

/** The SQLSTATE of a PostgreSQL error, or undefined for anything else (a lost connection, a bug). */
export function sqlState(err: unknown): string | undefined {
  return err instanceof Error ? (err as PgError).code : undefined;
}

/** The constraint or index a PostgreSQL error names, if any. */
export function constraintOf(err: unknown): string | undefined {
  return err instanceof Error ? (err as PgError).constraint : undefined;
}

/** Wraps an unexpected failure, keeping it as the cause. */
export function wrapError(collection: string, action: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  return new StoreError(`${collection}: ${action} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}
