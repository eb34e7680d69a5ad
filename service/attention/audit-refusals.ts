/**
 * Refusals per channel, counted from the refused-client audit events ("Security Alert", Node Authentication: one per
 * address and window, with its count; audit/refused-nodes.ts) until refusals have a store of their own. The one
 * function the attention wing swaps for that store's `recentByChannel(sinceMs)`.
 */
import type { AuditLog } from '../storage/audits.js';
import type { Collection } from '../storage/store.js';
import type { ChannelRecord } from '../storage/records.js';
import { foldRefusals } from '../domain/operations/attention.js';
import type { ChannelRefusals, RefusalEvent } from '../domain/operations/attention.js';
import type { RecentRefusals } from './sources.js';

// Summaries read per check: each stands for up to a window of refusals from one address, so this bounds the work
// of a flood, not the count.
const MAX_EVENTS = 1000;

export function refusalsFromAudits(audits: Pick<AuditLog, 'page'>, channels: Collection<ChannelRecord>): RecentRefusals {
  return async (sinceMs) => {
    const records = await audits.page({ from: new Date(sinceMs), codes: [{ field: 'eventTypeCode', code: '110126' }] }, { skip: 0, limit: MAX_EVENTS });
    const events: RefusalEvent[] = records.map((r) => {
      const details = new Map((r.participantObjectIdentification?.[0]?.participantObjectDetail ?? []).map((d) => [d.type, d.value]));
      const attempts = Number(details.get('attempts') ?? '1');
      return {
        channels: (details.get('channel') ?? '').split(',').filter((n) => n !== ''),
        attempts: Number.isFinite(attempts) && attempts > 0 ? attempts : 1,
        reason: details.get('reason') ?? 'refused',
        at: r.eventIdentification.eventDateTime,
      };
    });
    const folded = foldRefusals(events);
    const known = await channels.find({ name: { $in: folded.map((f) => f.name) } });
    const idOf = new Map(known.map((c) => [c.name, c._id]));
    return folded.map((f): ChannelRefusals => {
      const id = idOf.get(f.name);
      return { channel: id === undefined ? { name: f.name } : { _id: id, name: f.name }, count: f.count, lastReason: f.lastReason };
    });
  };
}
