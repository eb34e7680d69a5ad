/**
 * The change history of channels (`GET /channels/:id/audits`): one record per create, update and delete, holding the
 * JSON Patch operations from before to after (domain/channels/channel-history.ts), the author and the date, as OpenHIM's patch
 * history does. Records outlive the channel, so the history of a deleted channel can still be read.
 */
import { channelPatch } from '../domain/channels/channel-history.js';
import type { Author } from '../accounts/users.js';
import type { ChannelAuditRecord, ChannelRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';

export class ChannelHistory {
  readonly #records: Collection<ChannelAuditRecord>;
  readonly #now: () => Date;

  constructor(records: Collection<ChannelAuditRecord>, now: () => Date = () => new Date()) {
    this.#records = records;
    this.#now = now;
  }

  /** Records one change of a channel (`before` null for a creation, `after` null for a deletion); nothing when nothing changed. */
  async record(ref: string, before: ChannelRecord | null, after: ChannelRecord | null, by: Author): Promise<void> {
    const ops = channelPatch(before, after);
    if (ops.length === 0) return;
    await this.#records.insert({ ref, ops, date: this.#now(), updatedBy: by });
  }

  /** The history of one channel, newest first (deleted channels included). */
  list(ref: string): Promise<ChannelAuditRecord[]> {
    return this.#records.find({ ref }, { sort: { date: -1, _id: -1 } });
  }
}
