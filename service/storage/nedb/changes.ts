/** Translating `Changes` into a NeDB update. */
import { checkChanges } from '../changes.js';
import type { StoredDoc } from '../records.js';
import type { Changes } from '../store.js';

export interface NedbUpdate {
  $set: Record<string, unknown>;
  $unset?: Record<string, true>;
}

/** Validates changes (storage/changes.ts) and returns `{ $set, $unset }`; throws StoreError for a bad field name or value. */
export function toNedbUpdate<T extends StoredDoc>(collection: string, changes: Changes<T>): NedbUpdate {
  const { set, unset } = checkChanges(collection, changes);
  // NeDB treats an update without any $-operator as a whole-document replacement, so $set is always present.
  const update: NedbUpdate = { $set: set };
  if (unset.length > 0) update.$unset = Object.fromEntries(unset.map((field) => [field, true as const]));
  return update;
}
