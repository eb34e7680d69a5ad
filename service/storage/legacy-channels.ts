/**
 * Channels saved before Junction took OpenHIM's field names hold `whitelistedIPs` instead of `whitelist`. They are
 * rewritten once when the service starts, before anything reads them, so every reader sees only `whitelist`.
 */
import type { ChannelRecord } from './records.js';
import type { Changes, Collection } from './store.js';

/** A stored channel as an earlier Junction wrote it. */
type LegacyChannel = ChannelRecord & { whitelistedIPs?: string[] };

/** Renames `whitelistedIPs` to `whitelist` in every stored channel that still has it; returns how many were rewritten. */
export async function upgradeLegacyChannels(channels: Collection<ChannelRecord>): Promise<number> {
  const legacy = (await channels.find({ whitelistedIPs: { $exists: true } })) as LegacyChannel[];
  for (const channel of legacy) {
    // A channel that somehow has both keeps `whitelist`, the name every current writer uses.
    const whitelist = channel.whitelist ?? channel.whitelistedIPs ?? [];
    const changes = { set: { whitelist }, unset: ['whitelistedIPs'] } as unknown as Changes<ChannelRecord>;
    await channels.updateById(channel._id, changes);
  }
  return legacy.length;
}
