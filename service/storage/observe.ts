/** A collection wrapper that reports every successful write, so in-memory caches stay exact without polling. */
import type { StoredDoc } from './records.js';
import type { Changes, Collection, Filter, FindOptions, NewDoc } from './store.js';

/** Wraps a collection; `onChange` runs after each insert, update or remove that succeeded. */
export function observeCollection<T extends StoredDoc>(collection: Collection<T>, onChange: () => void): Collection<T> {
  const after = async <R>(write: Promise<R>): Promise<R> => {
    const result = await write;
    onChange();
    return result;
  };
  return {
    name: collection.name,
    insert: (doc: NewDoc<T>) => after(collection.insert(doc)),
    findById: (id: string) => collection.findById(id),
    findOne: (filter: Filter) => collection.findOne(filter),
    find: (filter: Filter, options?: FindOptions) => collection.find(filter, options),
    count: (filter: Filter) => collection.count(filter),
    updateById: (id: string, changes: Changes<T>) => after(collection.updateById(id, changes)),
    updateMany: (filter: Filter, changes: Changes<T>) => after(collection.updateMany(filter, changes)),
    removeById: (id: string) => after(collection.removeById(id)),
    removeMany: (filter: Filter) => after(collection.removeMany(filter)),
  };
}
