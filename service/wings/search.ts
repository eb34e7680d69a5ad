/**
 * The search wing (issue 37): the indexer that follows completed transactions into the search index and walks back
 * over older ones, as a job of the schedulers wing's registry (so it starts with the other jobs, runs on one instance
 * of a cluster under its lease, and stops with them). `search.enabled: false` builds no indexer: nothing is indexed.
 * It offers what the API needs to answer searches and the index's status.
 */
import { SearchIndexer } from '../search/indexer.js';
import type { SearchIndex } from '../storage/search-index.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Scheduling } from './schedulers.js';
import type { Wing } from './lifecycle.js';

export interface Search {
  /** `search.enabled`. */
  enabled: boolean;
  /** The engine's index, beside its transaction log. */
  index: SearchIndex;
  /** The indexer, when enabled. */
  indexer: SearchIndexer | undefined;
}

export function searchWing(core: Core, parts: { storage: Storage; scheduling: Scheduling }): Wing<Search> {
  const { config, logger } = core;
  const { storage, scheduling } = parts;
  const index = storage.searchIndex;
  if (!config.search.enabled) {
    return { offers: { enabled: false, index, indexer: undefined }, start: () => logger.info('search.enabled is false: transactions are not indexed for search') };
  }
  const indexer = new SearchIndexer({
    log: storage.transactions,
    ...(storage.recentFinished === undefined ? {} : { recent: storage.recentFinished }),
    bodies: storage.bodies,
    index,
    maxTextBytes: config.search.maxTextBytes,
    logger: logger.child({ component: 'search' }),
  });
  scheduling.registry.add(indexer.job());
  return { offers: { enabled: true, index, indexer } };
}
