/**
 * Route passwords at rest: a channel route's Basic password must be sent upstream, so it cannot be hashed, but it
 * need not lie in clear in `channels.db`, the PostgreSQL table, or a backup. This wraps the channels collection so
 * that every write seals the passwords and every read opens them: the service modules, the pipeline's channel
 * cache, metadata export and import see the password as before, and only the engine holds the sealed text.
 * The sealing itself (AES-256-GCM under the keystore secret) is the keystore's; storage knows only this interface.
 *
 * Reads accept either form: a password written before sealing existed is returned as it is, and
 * `sealClearRoutePasswords` seals those once at start.
 */
import type { ChannelRecord, RouteRecord } from './records.js';
import { withChannels } from './store.js';
import type { Changes, Collection, Filter, FindOptions, NewDoc, Store } from './store.js';

/** Seals and opens short texts; `isSealed` tells a sealed text from a clear one. */
export interface TextSealer {
  seal(text: string): string;
  /** Throws when the text was sealed with another secret or altered. */
  open(text: string): string;
  isSealed(text: string): boolean;
}

type Routes = readonly RouteRecord[] | undefined;

function hasPassword(route: RouteRecord): route is RouteRecord & { password: string } {
  return typeof route.password === 'string' && route.password !== '';
}

function mapPasswords(routes: Routes, change: (password: string) => string): Routes {
  if (routes === undefined || !routes.some(hasPassword)) return routes;
  return routes.map((route) => (hasPassword(route) ? { ...route, password: change(route.password) } : route));
}

/** Told of a stored password that does not open (sealed with another secret, or altered). */
export type UnreadablePassword = (where: { channel: string; route: string }, error: unknown) => void;

/**
 * The collection with route passwords sealed on the way in and opened on the way out; `sealer` is asked only when a
 * password is met. A password that does not open is left out of the route (it then sends no credentials, and the
 * console shows no password to keep) and reported, so one lost secret does not stop every channel from loading.
 */
export function sealedRoutePasswords(collection: Collection<ChannelRecord>, sealer: () => TextSealer, unreadable: UnreadablePassword): Collection<ChannelRecord> {
  const sealRoutes = (routes: Routes): Routes =>
    mapPasswords(routes, (password) => {
      const s = sealer();
      return s.isSealed(password) ? password : s.seal(password);
    });
  const openRoutes = (doc: ChannelRecord): RouteRecord[] => {
    if (!doc.routes.some(hasPassword)) return doc.routes;
    const s = sealer();
    return doc.routes.map((route) => {
      if (!hasPassword(route) || !s.isSealed(route.password)) return route;
      try {
        return { ...route, password: s.open(route.password) };
      } catch (error) {
        unreadable({ channel: doc.name, route: route.name }, error);
        const { password: _unreadable, ...rest } = route;
        return rest;
      }
    });
  };
  const opened = (doc: ChannelRecord | null): ChannelRecord | null => (doc === null || !Array.isArray(doc.routes) ? doc : { ...doc, routes: openRoutes(doc) });
  const sealedChanges = (changes: Changes<ChannelRecord>): Changes<ChannelRecord> =>
    changes.set?.routes === undefined ? changes : { ...changes, set: { ...changes.set, routes: sealRoutes(changes.set.routes) as RouteRecord[] } };
  return {
    name: collection.name,
    insert: async (doc: NewDoc<ChannelRecord>) => opened(await collection.insert(Array.isArray(doc.routes) ? { ...doc, routes: sealRoutes(doc.routes) as RouteRecord[] } : doc)) as ChannelRecord,
    findById: async (id: string) => opened(await collection.findById(id)),
    findOne: async (filter: Filter) => opened(await collection.findOne(filter)),
    find: async (filter: Filter, options?: FindOptions) => (await collection.find(filter, options)).map((doc) => opened(doc) as ChannelRecord),
    count: (filter: Filter) => collection.count(filter),
    updateById: async (id: string, changes: Changes<ChannelRecord>) => opened(await collection.updateById(id, sealedChanges(changes))),
    updateMany: (filter: Filter, changes: Changes<ChannelRecord>) => collection.updateMany(filter, sealedChanges(changes)),
    removeById: (id: string) => collection.removeById(id),
    removeMany: (filter: Filter) => collection.removeMany(filter),
  };
}

/** `store` with its channels' route passwords sealed at rest (see sealedRoutePasswords). */
export function withSealedRoutePasswords(store: Store, sealer: () => TextSealer, unreadable: UnreadablePassword): Store {
  return withChannels(store, sealedRoutePasswords(store.channels, sealer, unreadable));
}

/**
 * Seals the route passwords an earlier version stored in clear, straight in the engine's collection (`raw`, not the
 * wrapped one, which would hide which are clear). Safe to run on every start and by several instances at once: a
 * channel already sealed is left alone. Returns how many channels were rewritten.
 */
export async function sealClearRoutePasswords(raw: Collection<ChannelRecord>, sealer: TextSealer): Promise<number> {
  let rewritten = 0;
  for (const channel of await raw.find({})) {
    const routes = Array.isArray(channel.routes) ? channel.routes : [];
    if (!routes.some((route) => hasPassword(route) && !sealer.isSealed(route.password))) continue;
    const sealed = mapPasswords(routes, (password) => (sealer.isSealed(password) ? password : sealer.seal(password))) as RouteRecord[];
    if ((await raw.updateById(channel._id, { set: { routes: sealed } })) !== null) rewritten += 1;
  }
  return rewritten;
}
