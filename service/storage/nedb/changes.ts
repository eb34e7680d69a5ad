/** Translating `Changes` into a NeDB update. */
import { StoreError } from '../store.js';
import type { Changes, StoredDoc } from '../store.js';
import { fieldNameProblem, isPlainObject, toStorable } from './documents.js';

export interface NedbUpdate {
  $set: Record<string, unknown>;
  $unset?: Record<string, true>;
}

/** Validates changes and returns `{ $set, $unset }`; throws StoreError for a bad field name or value. */
export function toNedbUpdate<T extends StoredDoc>(collection: string, changes: Changes<T>): NedbUpdate {
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
  // NeDB treats an update without any $-operator as a whole-document replacement, so $set is always present.
  const update: NedbUpdate = { $set: set };
  if (changes.unset !== undefined) {
    if (!Array.isArray(changes.unset)) throw new StoreError(`${collection}: changes.unset must be an array of field names`);
    const unset: Record<string, true> = {};
    for (const field of changes.unset as readonly unknown[]) {
      if (typeof field !== 'string') throw new StoreError(`${collection}: changes.unset must be an array of field names`);
      checkTopLevelField(collection, field, 'unset');
      if (Object.hasOwn(set, field)) throw new StoreError(`${collection}: field "${field}" is both set and unset`);
      unset[field] = true;
    }
    if (Object.keys(unset).length > 0) update.$unset = unset;
  }
  return update;
}

function checkTopLevelField(collection: string, field: string, where: string): void {
  const problem = field === '_id' ? 'cannot be changed' : fieldNameProblem(field);
  if (problem !== null) throw new StoreError(`${collection}: ${where}: field "${field}" ${problem}`);
}
