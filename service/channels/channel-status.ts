/**
 * "Is it working?" for every channel at once (`GET /channels/status`, issue 36): today's received and failed counts
 * from the day's metric buckets (kept as transactions complete, never counted by scanning them), today's refusals
 * from the refusal log, the newest transaction's time (one indexed read per channel), the listener's state and the
 * address a sender uses. Which channels a caller sees is the route's decision.
 */
import type { ChannelListener, ChannelStatusAnswer, ChannelStatusRow } from '../contracts/channels.js';
import { listenerCondition, senderAddresses } from '../domain/channels/channel-address.js';
import type { SenderPorts } from '../domain/channels/channel-address.js';
import { bucketStart, nextBucketStart } from '../domain/operations/metric-periods.js';
import type { ChannelRecord } from '../storage/records.js';
import type { ChannelRefusalCount } from '../storage/refusals.js';
import type { TransactionLog } from '../storage/transactions.js';

export interface ChannelStatusOptions {
  transactions: Pick<TransactionLog, 'metrics' | 'metricsTimeZone' | 'page'>;
  /** Refusals per channel whose minute is in [from, to), epoch ms (the refusal recorder, which writes what it holds first). */
  refusals: { countsByChannel(from: number, to: number): Promise<ChannelRefusalCount[]> };
  /** The listener of a tcp or tls channel as it is now. */
  listenerOf: (channel: ChannelRecord) => ChannelListener | undefined;
  /** The transaction ports as bound and the host name senders reach this machine by. */
  ports: () => SenderPorts;
  now?: () => number;
}

export class ChannelStatuses {
  readonly #options: ChannelStatusOptions;

  constructor(options: ChannelStatusOptions) {
    this.#options = options;
  }

  /** The status of each of `channels`, in their order. */
  async of(channels: readonly ChannelRecord[]): Promise<ChannelStatusAnswer> {
    const { transactions, refusals } = this.#options;
    const timeZone = transactions.metricsTimeZone;
    const now = new Date(this.#options.now?.() ?? Date.now());
    const from = bucketStart(now, 'day', timeZone);
    const to = nextBucketStart(from, 'day', timeZone);
    const ids = channels.map((c) => c._id);
    const [buckets, refused, newest] = await Promise.all([
      ids.length === 0 ? [] : transactions.metrics({ period: 'day', from, to, channelIDs: ids }),
      refusals.countsByChannel(from.getTime(), to.getTime()),
      Promise.all(channels.map(async (c) => (await transactions.page({ channelID: [c._id] }, { limit: 1 }))[0]?.request.timestamp)),
    ]);
    const counts = new Map<string, { received: number; failed: number }>();
    for (const bucket of buckets) {
      const sum = counts.get(bucket.channelID) ?? { received: 0, failed: 0 };
      sum.received += bucket.requests;
      sum.failed += bucket.failed;
      counts.set(bucket.channelID, sum);
    }
    const refusedById = new Map<string, number>();
    const refusedByName = new Map<string, number>();
    for (const row of refused) {
      // A tcp or tls listener's refusal names its channel; the id is filled in when the rows are written.
      if (row.channelId !== '') refusedById.set(row.channelId, (refusedById.get(row.channelId) ?? 0) + row.count);
      else if (row.channelName !== '') refusedByName.set(row.channelName, (refusedByName.get(row.channelName) ?? 0) + row.count);
    }
    const ports = this.#options.ports();
    const rows = channels.map((channel, i): ChannelStatusRow => {
      const today = counts.get(channel._id) ?? { received: 0, failed: 0 };
      const last = newest[i];
      return {
        _id: channel._id,
        name: channel.name,
        type: channel.type,
        status: channel.status,
        today: { ...today, refused: (refusedById.get(channel._id) ?? 0) + (refusedByName.get(channel.name) ?? 0) },
        lastMessageAt: last === undefined ? null : last.toISOString(),
        listener: listenerCondition(channel, this.#options.listenerOf(channel)),
        addresses: senderAddresses(channel, ports),
      };
    });
    return { since: from.toISOString(), timeZone, channels: rows };
  }
}
