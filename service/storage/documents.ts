/**
 * Checking documents on their way into any engine. Every engine keeps documents as JSON-like data (NeDB datafiles,
 * SQLite JSON text, PostgreSQL jsonb), so a value that would not survive a restart (undefined, NaN, a class
 * instance, a `$` or dotted field name) is refused here, the same way whichever engine stores it.
 */
import { isPlainObject } from '../domain/plain-object.js';
import { StoreError } from './store.js';

/** Why a field name cannot be stored, or null when it can. */
export function fieldNameProblem(name: string): string | null {
  if (name === '') return 'is empty';
  if (name.startsWith('$')) return 'starts with $';
  if (name.includes('.')) return 'contains a dot';
  // Assigning it would replace the prototype of the copy instead of storing a field.
  if (name === '__proto__') return 'is reserved';
  return null;
}

/**
 * Deepest nesting of objects and arrays a document may have. The API refuses deep free-form values well before this;
 * the bound keeps a value from anywhere else from overflowing the stack of this recursive copy.
 */
export const MAX_DOCUMENT_DEPTH = 64;

/** Deep-copies a caller's value for storage: drops undefined fields, rejects values that would not survive a restart. */
export function toStorable(collection: string, value: unknown, path: string, depth = 0): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw unsupported(collection, path, String(value));
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw unsupported(collection, path, 'an invalid Date');
    return new Date(value.getTime());
  }
  if ((Array.isArray(value) || isPlainObject(value)) && depth >= MAX_DOCUMENT_DEPTH) {
    throw new StoreError(`${collection}: ${path === '' ? 'the document' : `field "${path}"`} nests objects and arrays more than ${MAX_DOCUMENT_DEPTH} levels deep`);
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown, i) => {
      if (item === undefined) throw unsupported(collection, `${path}[${i}]`, 'undefined');
      return toStorable(collection, item, `${path}[${i}]`, depth + 1);
    });
  }
  if (isPlainObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue;
      const where = path === '' ? key : `${path}.${key}`;
      const problem = fieldNameProblem(key);
      if (problem !== null) throw new StoreError(`${collection}: field name "${where}" ${problem}`);
      copy[key] = toStorable(collection, item, where, depth + 1);
    }
    return copy;
  }
  throw unsupported(collection, path, describeType(value));
}

function unsupported(collection: string, path: string, what: string): StoreError {
  return new StoreError(`${collection}: ${path === '' ? 'the document' : `field "${path}"`} holds ${what}, which cannot be stored`);
}

function describeType(value: unknown): string {
  if (typeof value === 'object' && value !== null) return `a ${value.constructor?.name ?? 'non-plain'} object`;
  return `a ${typeof value}`;
}
