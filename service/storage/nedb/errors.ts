/** Turning NeDB's errors into `StoreError`s. */
import { StoreError, UniqueConstraintError } from '../store.js';
import type { CollectionSpec } from '../store.js';

interface UniqueViolation extends Error {
  errorType: 'uniqueViolated';
  key: unknown;
}

/** True for the error NeDB's index throws when a unique key is already taken. */
export function isUniqueViolation(err: unknown): err is UniqueViolation {
  return err instanceof Error && (err as Partial<UniqueViolation>).errorType === 'uniqueViolated';
}

/** True for an operating-system error (disk full, permission, ...) as opposed to NeDB rejecting the data. */
export function isSystemError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';
}

/** A short description of any thrown value, for messages. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * Maps NeDB's unique violation to the field it concerns. NeDB reports only the duplicated value, so the field is
 * the unique field whose value in the written data (new document or `$set`) equals it.
 */
export function toUniqueConstraintError(spec: CollectionSpec, err: UniqueViolation, written: unknown): UniqueConstraintError {
  const fields = [...spec.unique, '_id'];
  const field = fields.find((f) => holdsKey(valueAt(written, f), err.key)) ?? spec.unique[0] ?? '_id';
  return new UniqueConstraintError(spec.name, field, { cause: err });
}

function valueAt(doc: unknown, path: string): unknown {
  let value = doc;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function holdsKey(value: unknown, key: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => holdsKey(item, key));
  if (value instanceof Date && key instanceof Date) return value.getTime() === key.getTime();
  return value !== undefined && value === key;
}

/** Wraps an unexpected NeDB failure, keeping it as the cause. */
export function wrapError(collection: string, action: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  return new StoreError(`${collection}: ${action} failed: ${describeError(err)}`, { cause: err });
}
