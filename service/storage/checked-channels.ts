/**
 * The store the service hands out: the engine's store with its channels collection wrapped once. Every channel
 * writer (the API, mediator default channels, tasks, replays, polling, retention, auto retry) then keeps live names
 * unique (live-channel-names.ts) and reports its write (observe.ts) to whatever holds channels in memory, such as the
 * pipeline's channel cache. A writer handed the engine's own collection would skip both, silently.
 */
import { uniqueLiveChannelNames } from './live-channel-names.js';
import { observeCollection } from './observe.js';
import { withChannels } from './store.js';
import type { Store } from './store.js';

/** `store` with its channels checked for live-name clashes and observed: `onChange` runs after each write that succeeded. */
export function withCheckedChannels(store: Store, onChange: () => void): Store {
  return withChannels(store, observeCollection(uniqueLiveChannelNames(store.channels), onChange));
}
