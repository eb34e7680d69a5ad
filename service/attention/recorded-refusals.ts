/**
 * The channels refusing traffic, for the needs-attention list: the refusal recorder's counts per channel (the
 * refusal log and what it holds not yet written), each with the words its latest refusal's sender was given.
 * Refusals that named no channel (a request matching none) are the Refused page's, not a channel's problem.
 */
import type { ChannelRefusalCount, RefusalFilter, RefusalLogPage } from '../storage/refusals.js';
import type { RecentRefusals } from './sources.js';

export interface RefusalCounts {
  recentByChannel(sinceMs: number): Promise<ChannelRefusalCount[]>;
  page(filter: RefusalFilter, window: { limit: number; skip: number }): Promise<RefusalLogPage>;
}

export function recordedRefusals(refusals: RefusalCounts): RecentRefusals {
  return async (sinceMs) => {
    const counts = (await refusals.recentByChannel(sinceMs)).filter((c) => c.channelId !== '');
    return Promise.all(
      counts.map(async (c) => {
        const { items } = await refusals.page({ from: sinceMs, channelIds: [c.channelId] }, { limit: 1, skip: 0 });
        const latest = items[0];
        return { channel: { _id: c.channelId, name: c.channelName }, count: c.count, lastReason: latest === undefined ? 'refused' : latest.detail === '' ? latest.reason : latest.detail };
      }),
    );
  };
}
