/**
 * Checking documents on their way into any engine. Every engine keeps documents as JSON-like data (NeDB datafiles,
 * SQLite JSON text, PostgreSQL jsonb), so a value that would not survive a restart (undefined, NaN, a class
 * instance, a `$` or dotted field name) is refused here, the same way whichever engine stores it.
 */
import { isPlainObject } from '../domain/util/plain-object.js';
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
  try {
    return copyStorable(value, depth);
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    // The path is built only now: every proxied request copies two documents, and naming each field on the way (a
    // string per field) was most of the copy's garbage.
    let where = path;
    for (let i = err.steps.length - 1; i >= 0; i--) {
      const step = err.steps[i];
      where = typeof step === 'number' ? `${where}[${step}]` : where === '' ? String(step) : `${where}.${String(step)}`;
    }
    const field = where === '' ? 'the document' : `field "${where}"`;
    if (err.kind === 'name') throw new StoreError(`${collection}: field name "${where}" ${err.what}`);
    if (err.kind === 'depth') throw new StoreError(`${collection}: ${field} nests objects and arrays more than ${MAX_DOCUMENT_DEPTH} levels deep`);
    throw new StoreError(`${collection}: ${field} holds ${err.what}, which cannot be stored`);
  }
}

/** Why copyStorable refused a value, and the keys and indexes leading to it (innermost first). */
class Refusal extends Error {
  readonly steps: (string | number)[] = [];
  constructor(
    readonly kind: 'value' | 'name' | 'depth',
    readonly what: string,
  ) {
    super(what);
  }
}

function copyStorable(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new Refusal('value', String(value));
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new Refusal('value', 'an invalid Date');
    return new Date(value.getTime());
  }
  if (Array.isArray(value)) {
    if (depth >= MAX_DOCUMENT_DEPTH) throw new Refusal('depth', '');
    const copy: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      try {
        if (item === undefined) throw new Refusal('value', 'undefined');
        copy[i] = copyStorable(item, depth + 1);
      } catch (err) {
        if (err instanceof Refusal) err.steps.push(i);
        throw err;
      }
    }
    return copy;
  }
  if (isPlainObject(value)) {
    if (depth >= MAX_DOCUMENT_DEPTH) throw new Refusal('depth', '');
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item === undefined) continue;
      try {
        const problem = fieldNameProblem(key);
        if (problem !== null) throw new Refusal('name', problem);
        copy[key] = copyStorable(item, depth + 1);
      } catch (err) {
        if (err instanceof Refusal) err.steps.push(key);
        throw err;
      }
    }
    return copy;
  }
  throw new Refusal('value', describeType(value));
}

function describeType(value: unknown): string {
  if (typeof value === 'object' && value !== null) return `a ${value.constructor?.name ?? 'non-plain'} object`;
  return `a ${typeof value}`;
}
