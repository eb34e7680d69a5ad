/**
 * The values a configuration-store filter may compare with, checked the same way by every engine: a filter that
 * compares with something its engine would match oddly or never, or names a field no document can have, is refused,
 * naming where it is.
 */
import { StoreError } from './store.js';
import type { Scalar } from './store.js';
import { fieldNameProblem } from './documents.js';

export function isScalar(value: unknown): value is Scalar {
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (typeof value === 'number') return Number.isFinite(value);
  return value === null || typeof value === 'string' || typeof value === 'boolean';
}

/** The value itself when it is a scalar a filter may hold; throws StoreError naming `where` otherwise. */
export function scalar(collection: string, value: unknown, where: string): Scalar {
  if (!isScalar(value)) throw new StoreError(`${collection}: ${where} must be a string, number, boolean, Date or null`);
  return value;
}

/** An array of such scalars (`$in`, `$nin`). */
export function scalarList(collection: string, value: unknown, where: string): Scalar[] {
  if (!Array.isArray(value)) throw new StoreError(`${collection}: ${where} must be an array`);
  return value.map((item: unknown, i) => scalar(collection, item, `${where}[${i}]`));
}

/** A range bound: ranges compare like with like, and null or booleans would silently never (or oddly) match. */
export function ordered(collection: string, value: unknown, where: string): string | number | Date {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  throw new StoreError(`${collection}: ${where} must be a string, number or Date`);
}

/** Throws StoreError unless `path` is a usable (possibly dotted) field path. */
export function checkFieldPath(collection: string, path: string, where: string): void {
  for (const part of path.split('.')) {
    const problem = fieldNameProblem(part);
    if (problem !== null) {
      const what = part.startsWith('$') ? `unknown operator ${part}` : `field "${path}": a path segment ${problem}`;
      throw new StoreError(`${collection}: ${where}: ${what}`);
    }
  }
}
