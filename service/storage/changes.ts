/** Checking the `Changes` of an update once, for every engine; each engine then applies the checked form its own way. */
import { isPlainObject } from '../domain/util/plain-object.js';
import { fieldNameProblem, toStorable } from './documents.js';
import { StoreError } from './store.js';
import type { StoredDoc } from './records.js';
import type { Changes } from './store.js';

/** Changes as an engine applies them: storable copies of the fields to set, and the names of the fields to remove. */
export interface CheckedChanges {
  set: Record<string, unknown>;
  unset: string[];
}

/** Validates changes and copies their values for storage; throws StoreError for a bad field name or value. */
export function checkChanges<T extends StoredDoc>(collection: string, changes: Changes<T>): CheckedChanges {
  if (!isPlainObject(changes)) throw new StoreError(`${collection}: changes must be an object`);
  const set: Record<string, unknown> = {};
  if (changes.set !== undefined) {
    if (!isPlainObject(changes.set)) throw new StoreError(`${collection}: changes.set must be an object`);
    for (const [field, value] of Object.entries(changes.set)) {
      checkTopLevelField(collection, field, 'set');
      // An undefined value means "not given" (as in a spread of optional fields), not "remove": that is `unset`.
      if (value !== undefined) set[field] = toStorable(collection, value, field);
    }
  }
  const unset: string[] = [];
  if (changes.unset !== undefined) {
    if (!Array.isArray(changes.unset)) throw new StoreError(`${collection}: changes.unset must be an array of field names`);
    for (const field of changes.unset as readonly unknown[]) {
      if (typeof field !== 'string') throw new StoreError(`${collection}: changes.unset must be an array of field names`);
      checkTopLevelField(collection, field, 'unset');
      if (Object.hasOwn(set, field)) throw new StoreError(`${collection}: field "${field}" is both set and unset`);
      if (!unset.includes(field)) unset.push(field);
    }
  }
  return { set, unset };
}

function checkTopLevelField(collection: string, field: string, where: string): void {
  const problem = field === '_id' ? 'cannot be changed' : fieldNameProblem(field);
  if (problem !== null) throw new StoreError(`${collection}: ${where}: field "${field}" ${problem}`);
}
