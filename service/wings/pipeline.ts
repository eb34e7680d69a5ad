/**
 * The pipeline wing: the transaction path of HTTP channels, the message path of tcp and tls channels, and the route
 * senders they share (HTTP, MLLP, TCP), which follow the keystore's CA list.
 */
import { Pipeline } from '../pipeline/index.js';
import { MessagePipeline } from '../pipeline/message.js';
import type { ChannelCache } from '../pipeline/channel-cache.js';
import { HttpRouter } from '../routing/http.js';
import { MllpRouter } from '../routing/mllp.js';
import { TcpRouter } from '../routing/tcp.js';
import { newTransactionId } from '../storage/transaction-ids.js';
import { queueAutoRetries } from '../storage/auto-retry-queue.js';
import type { QueueingTransactionLog } from '../storage/auto-retry-queue.js';
import type { Store } from '../storage/store.js';
import type { AuditRecorder } from '../audit/recorder.js';
import type { Keystore } from '../keystore/keystore.js';
import type { DiskWatcher } from '../disk/watcher.js';
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
}

export function pipelineWing(core: Core, parts: PipelineParts): Wing<Pipelines> {
  const { config, logger, events } = core;
  const { storage, store, channels, guard, audit, keystore, disk } = parts;
  const { tcp } = config;
  const { bodies } = storage;
  // Whatever flags a transaction for auto retry writes through this log, which queues it (auto-retry-queue.ts).
  const log = queueAutoRetries(storage.transactions, store.autoRetries, logger.child({ component: 'auto-retry' }));
  const trustedCAs = keystore.trustedCAs();
  const router = new HttpRouter({ trustedCAs });
  // One MLLP pool and one TCP sender for every channel, HTTP channels' mllp and tcp routes included.
  const mllp = new MllpRouter({ trustedCAs, connectionsPerUpstream: tcp.connectionsPerRoute, idleTimeoutMs: tcp.idleTimeoutSeconds * 1000, maxReplyBytes: tcp.maxMessageBytes });
  const tcpSender = new TcpRouter({ trustedCAs, maxReplyBytes: tcp.maxMessageBytes });
  keystore.onChange(({ trustedCAs: cas }) => {
    router.useTrustedCAs(cas);
    mllp.useTrustedCAs(cas);
    tcpSender.useTrustedCAs(cas);
  });
  const pipeline = new Pipeline({
    sockets: { mllp, tcp: tcpSender, maxMessageBytes: tcp.maxMessageBytes },
    channels,
    clientAuth: guard.clientAuth,
    log,
    bodies,
    router,
    audit,
    refusedNodes: guard.refusedNodes,
    events,
    logger: logger.child({ component: 'pipeline' }),
    newId: newTransactionId,
    limits: { bodyCapBytes: config.router.maxBodyBytes, matchBodyLimitBytes: config.router.matchBodyLimitBytes, defaultTimeoutMs: config.router.timeoutMs },
    admission: disk,
  });
  const messages = new MessagePipeline({
    clientAuth: guard.clientAuth,
    log,
    bodies,
    http: router,
    mllp,
    tcp: tcpSender,
    events,
    logger: logger.child({ component: 'messages' }),
    newId: newTransactionId,
    limits: { bodyCapBytes: config.router.maxBodyBytes, defaultTimeoutMs: config.router.timeoutMs, maxReplyBytes: tcp.maxMessageBytes },
    refusedNodes: guard.refusedNodes,
    admission: disk,
  });
  return {
    offers: { log, pipeline, messages },
    async stop() {
      // The listeners have stopped: the messages they accepted finish before their senders close.
      await messages.drain();
      await router.close();
      await mllp.close();
      await tcpSender.close();
    },
  };
}
