/**
 * The channels wing: the store every other part uses, its channels checked (unique live names) and their route
 * passwords sealed with the keystore secret, and the pipeline's channel cache; every channel write, here or on
 * another instance, is announced on `storage.changes.channels`.
 */
import { withCheckedChannels } from '../storage/checked-channels.js';
import { sealClearRoutePasswords, withSealedRoutePasswords } from '../storage/sealed-route-passwords.js';
import { upgradeLegacyChannels } from '../storage/legacy-channels.js';
import type { Store } from '../storage/store.js';
import type { Keystore } from '../keystore/keystore.js';
import { ChannelCache } from '../pipeline/channel-cache.js';
import { unusablePatterns } from '../domain/channels/channel-rules.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export interface Channels {
  /** The configuration collections, with channels wrapped once for every part alike. */
  store: Store;
  /** The pipeline's in-memory list of enabled channels, which every channel write invalidates. */
  cache: ChannelCache;
}

export async function channelsWing(core: Core, storage: Storage, keystore: Keystore): Promise<Wing<Channels>> {
  const { logger } = core;
  const sealer = keystore.textSealer();
  const reported = new Set<string>();
  const unreadable = (where: { channel: string; route: string }, err: unknown): void => {
    const key = `${where.channel}\0${where.route}`;
    if (reported.has(key)) return;
    reported.add(key);
    logger.error({ ...where, err }, 'a route password cannot be opened with this keystore secret: the route sends no credentials until its password is entered again (or the secret file it was sealed with is restored)');
  };
  const changed = storage.changes.channels;
  const store = withCheckedChannels(withSealedRoutePasswords(storage.engine, () => sealer, unreadable), () => void changed.emit());
  const sealed = await sealClearRoutePasswords(storage.engine.channels, sealer);
  if (sealed > 0) logger.info({ channels: sealed }, 'sealed the route passwords an earlier version stored in clear (with the keystore secret)');
  const upgraded = await upgradeLegacyChannels(store.channels);
  if (upgraded > 0) logger.info({ channels: upgraded }, "channels saved with whitelistedIPs now use OpenHIM's name, whitelist");
  const cache = new ChannelCache(store.channels);
  const unsubscribe = changed.subscribe(() => cache.invalidate());
  // A channel saved before patterns had to run in linear time may hold one that now never matches: say so once.
  for (const stored of await store.channels.find({ status: { $ne: 'deleted' } })) {
    for (const p of unusablePatterns(stored)) logger.warn({ channel: stored.name, field: p.path, reason: p.message }, 'a channel pattern is refused and never matches until the channel is edited');
  }
  return { offers: { store, cache }, stop: unsubscribe };
}
