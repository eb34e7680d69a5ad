/**
 * The refusals wing (issue 35): the recorder every refusal site reports to, writing to the storage's refusal log in
 * batches and counting in Prometheus. Built after the channels (it looks up the ids of channels known by name) and
 * before the pipeline and the transports, which report to it; it stops after them, writing what is left.
 */
import { RefusalRecorder } from '../refused/recorder.js';
import type { Store } from '../storage/store.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export function refusalsWing(core: Core, storage: Storage, store: Store): Wing<RefusalRecorder> {
  const { config, logger, prometheus } = core;
  const recorder = new RefusalRecorder({
    log: storage.refusals,
    logger: logger.child({ component: 'refusals' }),
    count: (channel, reason) => prometheus.refused(channel, reason),
    channelIds: async (names) => new Map((await store.channels.find({ name: { $in: [...names] } })).map((c) => [c.name, c._id])),
    flushIntervalMs: config.refusals.flushIntervalSeconds * 1000,
    maxPendingRows: config.refusals.maxPendingRows,
  });
  return { offers: recorder, start: () => recorder.start(), stop: () => recorder.stop() };
}
