/**
 * The store as an instance of a cluster hands it out: every successful write to a collection that instances hold in
 * memory is announced on the change bus, with the ids it touched, so the other instances refresh what they hold.
 * Wrap the store the service uses (after storage/checked-channels.ts), so every writer is covered.
 */
import type { StoredDoc } from '../storage/records.js';
import { collectionsOf } from '../storage/collection-specs.js';
import { storeOf } from '../storage/store.js';
import type { Changes, Collection, Filter, NewDoc, Store } from '../storage/store.js';
import type { ChangeBus, ChangeKind } from './change-bus.js';

/** `store` with its writes to channels, clients, users, mediators, contact groups and settings announced on `bus`. */
export function announcingStore(store: Store, bus: ChangeBus): Store {
  return storeOf(
    {
      ...collectionsOf(store),
      users: announced(store.users, 'users', bus),
      channels: announced(store.channels, 'channels', bus),
      clients: announced(store.clients, 'clients', bus),
      mediators: announced(store.mediators, 'mediators', bus),
      contactGroups: announced(store.contactGroups, 'contactGroups', bus),
      // The settings saved in the console: every instance applies them (settings/clinic-settings.ts).
      settings: announced(store.settings, 'settings', bus),
    },
    store,
  );
}

/** Wraps one collection: a write that changed something is announced after it succeeded. */
function announced<T extends StoredDoc>(collection: Collection<T>, kind: ChangeKind, bus: ChangeBus): Collection<T> {
  return {
    name: collection.name,
    insert: async (doc: NewDoc<T>) => {
      const stored = await collection.insert(doc);
      bus.publish(kind, [stored._id]);
      return stored;
    },
    findById: (id: string) => collection.findById(id),
    findOne: (filter: Filter) => collection.findOne(filter),
    find: (filter, options) => collection.find(filter, options),
    count: (filter: Filter) => collection.count(filter),
    updateById: async (id: string, changes: Changes<T>) => {
      const updated = await collection.updateById(id, changes);
      if (updated !== null) bus.publish(kind, [id]);
      return updated;
    },
    // Which documents a filter reached is not returned; the others refresh every document of the kind.
    updateMany: async (filter: Filter, changes: Changes<T>) => {
      const count = await collection.updateMany(filter, changes);
      if (count > 0) bus.publish(kind, null);
      return count;
    },
    removeById: async (id: string) => {
      const removed = await collection.removeById(id);
      if (removed) bus.publish(kind, [id]);
      return removed;
    },
    removeMany: async (filter: Filter) => {
      const count = await collection.removeMany(filter);
      if (count > 0) bus.publish(kind, null);
      return count;
    },
  };
}
