/**
 * The store of a simple list resource (clients, contact groups, users): the list loaded from the API and kept in
 * step, in its order, after each change made from this console. Each resource says how to reach its API and how its
 * items are keyed and ordered; the rest is the same for all of them.
 */
import { create } from 'zustand';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface ListState<T, C, U> {
  items: T[];
  status: LoadStatus;
  error: unknown;
  load: () => Promise<void>;
  create: (input: C) => Promise<T>;
  /** `key` is the item's key before the change (a user's email may be the thing that changes). */
  update: (key: string, changes: U) => Promise<T>;
  remove: (key: string) => Promise<void>;
}

export interface ListResource<T, C, U> {
  list: () => Promise<T[]>;
  create: (input: C) => Promise<T>;
  update: (key: string, changes: U) => Promise<T>;
  remove: (key: string) => Promise<void>;
  /** What `update` and `remove` are addressed by. */
  keyOf: (item: T) => string;
  order: (a: T, b: T) => number;
  /** False keeps a loaded list in the API's order (only local changes are put in order). */
  orderLoaded?: boolean;
  /** Runs after an update was stored, with the key the item had before it. */
  updated?: (item: T, previousKey: string) => void;
}

export function createListStore<T, C, U>(resource: ListResource<T, C, U>) {
  const { keyOf, order } = resource;
  return create<ListState<T, C, U>>()((set, get) => ({
    items: [],
    status: 'idle',
    error: null,
    async load() {
      set({ status: get().status === 'ready' ? 'ready' : 'loading', error: null });
      try {
        const items = await resource.list();
        set({ items: resource.orderLoaded === false ? items : items.sort(order), status: 'ready' });
      } catch (err) {
        set({ error: err, status: 'error' });
      }
    },
    async create(input) {
      const created = await resource.create(input);
      set({ items: [...get().items, created].sort(order) });
      return created;
    },
    async update(key, changes) {
      const updated = await resource.update(key, changes);
      set({ items: get().items.map((item) => (keyOf(item) === key ? updated : item)).sort(order) });
      resource.updated?.(updated, key);
      return updated;
    },
    async remove(key) {
      await resource.remove(key);
      set({ items: get().items.filter((item) => keyOf(item) !== key) });
    },
  }));
}
