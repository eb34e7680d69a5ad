/**
 * The pipeline wing: the transaction path of HTTP channels, the message path of tcp and tls channels, and the route
 * senders they share (HTTP, MLLP, TCP), which follow the keystore's CA list.
 */
import type { Pipeline } from '../pipeline/index.js';
import type { MessagePipeline } from '../pipeline/message.js';
import { transactionPaths } from '../pipeline/assemble.js';
import type { ChannelCache } from '../pipeline/channel-cache.js';
import { UnfinishedTransactions } from '../pipeline/unfinished.js';
import { RouteSenderPool } from '../routing/senders.js';
import { newTransactionId } from '../storage/transaction-ids.js';
import { queueAutoRetries } from '../storage/auto-retry-queue.js';
import type { QueueingTransactionLog } from '../storage/auto-retry-queue.js';
import type { Store } from '../storage/store.js';
import type { AuditRecorder } from '../audit/recorder.js';
import type { Keystore } from '../keystore/keystore.js';
import type { DiskWatcher } from '../disk/watcher.js';
import type { RefusalRecorder } from '../refused/recorder.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { ClientGuard } from './client-guard.js';
import type { Wing } from './lifecycle.js';

export interface Pipelines {
  /** The transaction log as the pipeline writes it: whatever flags a transaction for auto retry queues it. */
  log: QueueingTransactionLog;
  pipeline: Pipeline;
  messages: MessagePipeline;
}

export interface PipelineParts {
  storage: Storage;
  store: Store;
  channels: ChannelCache;
  guard: ClientGuard;
  audit: AuditRecorder;
  keystore: Keystore;
  disk: DiskWatcher;
  refusals: RefusalRecorder;
}

export function pipelineWing(core: Core, parts: PipelineParts): Wing<Pipelines> {
  const { config, logger, events } = core;
  const { storage, store, channels, guard, audit, keystore, disk, refusals } = parts;
  const { tcp } = config;
  const { bodies } = storage;
  // Whatever flags a transaction for auto retry writes through this log, which queues it (auto-retry-queue.ts).
  const log = queueAutoRetries(storage.transactions, store.autoRetries, logger.child({ component: 'auto-retry' }));
  // One set of route senders (HTTP, MLLP, TCP) for every channel, whichever transport its transactions arrive by.
  const senders = new RouteSenderPool({ trustedCAs: keystore.trustedCAs(), maxMessageBytes: tcp.maxMessageBytes, connectionsPerUpstream: tcp.connectionsPerRoute, idleTimeoutMs: tcp.idleTimeoutSeconds * 1000 });
  keystore.onChange(({ trustedCAs }) => senders.useTrustedCAs(trustedCAs));
  const { router } = config;
  const limits = { bodyCapBytes: router.maxBodyBytes, matchBodyLimitBytes: router.matchBodyLimitBytes, defaultTimeoutMs: router.timeoutMs, maxReplyBytes: tcp.maxMessageBytes };
  // Transactions whose outcome could not be written (the database went away) are finished once it is back.
  const unfinished = new UnfinishedTransactions({ log, logger: logger.child({ component: 'pipeline' }) });
  const { pipeline, messages } = transactionPaths({ channels, clientAuth: guard.clientAuth, log, bodies, audit, events, logger, newId: newTransactionId, senders: senders.senders, limits, refusedNodes: guard.refusedNodes, admission: disk, refusals, unfinished });
  return {
    offers: { log, pipeline, messages },
    async stop() {
      // The listeners have stopped: the messages they accepted finish before their senders close.
      await messages.drain();
      await senders.close();
      unfinished.stop();
    },
  };
}
