/** The enabled channels in matching order, held in memory: matching must not query the store on every request. */
import { byPriority } from '../domain/channels/channel-match.js';
import type { ChannelRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';

export class ChannelCache {
  readonly #source: Collection<ChannelRecord>;
  #channels: Promise<ChannelRecord[]> | null = null;
  // The loaded list by id, for lookups that must not wait (null until loaded, and again after every write).
  #byId: Map<string, ChannelRecord> | null = null;
  #generation = 0;

  constructor(source: Collection<ChannelRecord>) {
    this.#source = source;
  }

  /** Drops the cached list; the next lookup reloads it. Called after every write to the channels collection. */
  invalidate(): void {
    this.#generation++;
    this.#channels = null;
    this.#byId = null;
  }

  /** The enabled channel `id` when the list is loaded and holds it; undefined otherwise (not loaded, disabled or gone). */
  peek(id: string): ChannelRecord | undefined {
    return this.#byId?.get(id);
  }

  /** Enabled channels ordered by priority. */
  enabled(): Promise<ChannelRecord[]> {
    if (this.#channels === null) {
      const generation = this.#generation;
      // Equal priorities keep creation order, so matching is deterministic.
      const loading = this.#source.find({ status: 'enabled' }, { sort: { createdAt: 1 } }).then((list) => byPriority(list));
      this.#channels = loading;
      // A failed load is not cached; nor is one that a concurrent write has already made stale.
      loading.catch(() => {
        if (this.#generation === generation) this.#channels = null;
      });
      void loading.then((list) => {
        if (this.#generation !== generation) {
          if (this.#channels === loading) this.#channels = null;
          return;
        }
        this.#byId = new Map(list.map((channel) => [channel._id, channel]));
      }, () => undefined);
    }
    return this.#channels;
  }
}
