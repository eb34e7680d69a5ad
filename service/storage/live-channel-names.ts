/**
 * Keeps channel names unique among live channels (domain/channels/channel-names.ts). No store index can say "unique where the
 * status is not deleted", so this wrapper checks each write that can take a name: an insert, or an update that sets
 * `name` or `status`. Those writes run one at a time, so two requests cannot both take a name that was free when
 * they looked. Every channel writer (API, mediator default channels) goes through it.
 */
import { liveNameClash } from '../domain/channels/channel-names.js';
import type { NamedChannel } from '../domain/channels/channel-names.js';
import type { ChannelRecord } from './records.js';
import { UniqueConstraintError } from './store.js';
import type { Changes, Collection, Filter, NewDoc } from './store.js';

/** A write would give a live channel the name of another live channel, `holder`. */
export class ChannelNameTakenError extends UniqueConstraintError {
  constructor(readonly holder: { _id: string; name: string }) {
    super('channels', 'name');
  }
}

const touchesName = (changes: Changes<ChannelRecord>): boolean =>
  changes.set?.name !== undefined || changes.set?.status !== undefined || (changes.unset ?? []).some((k) => k === 'name' || k === 'status');

/** The channel as it reads after `changes`; only the fields the name rule needs. */
function applied(stored: ChannelRecord, changes: Changes<ChannelRecord>): NamedChannel {
  const after: NamedChannel = { _id: stored._id, name: changes.set?.name ?? stored.name, status: changes.set?.status ?? stored.status };
  if (changes.unset?.includes('status') === true && changes.set?.status === undefined) delete after.status;
  return after;
}

/** Wraps the channels collection so no write leaves two live channels with one name. */
export function uniqueLiveChannelNames(channels: Collection<ChannelRecord>): Collection<ChannelRecord> {
  let queue: Promise<unknown> = Promise.resolve();
  function serially<R>(job: () => Promise<R>): Promise<R> {
    const run = queue.then(job, job);
    queue = run.catch(() => undefined);
    return run;
  }

  async function refuseClash(written: NamedChannel[]): Promise<void> {
    const names = [...new Set(written.map((c) => c.name))];
    const stored = await channels.find({ name: { $in: names } });
    const clash = liveNameClash(stored, written);
    if (clash !== null) throw new ChannelNameTakenError({ _id: clash.holder._id ?? '', name: clash.holder.name });
  }

  return {
    name: channels.name,
    insert: (doc: NewDoc<ChannelRecord>) =>
      serially(async () => {
        await refuseClash([{ ...(doc._id === undefined ? {} : { _id: doc._id }), name: doc.name, status: doc.status }]);
        return channels.insert(doc);
      }),
    findById: (id: string) => channels.findById(id),
    findOne: (filter: Filter) => channels.findOne(filter),
    find: (filter, options) => channels.find(filter, options),
    count: (filter: Filter) => channels.count(filter),
    updateById: (id: string, changes: Changes<ChannelRecord>) => {
      if (!touchesName(changes)) return channels.updateById(id, changes);
      return serially(async () => {
        const stored = await channels.findById(id);
        if (stored !== null) await refuseClash([applied(stored, changes)]);
        return channels.updateById(id, changes);
      });
    },
    updateMany: (filter: Filter, changes: Changes<ChannelRecord>) => {
      if (!touchesName(changes)) return channels.updateMany(filter, changes);
      return serially(async () => {
        await refuseClash((await channels.find(filter)).map((stored) => applied(stored, changes)));
        return channels.updateMany(filter, changes);
      });
    },
    removeById: (id: string) => channels.removeById(id),
    removeMany: (filter: Filter) => channels.removeMany(filter),
  };
}
