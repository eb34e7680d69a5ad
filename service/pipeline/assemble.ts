/**
 * Builds the transaction path once for every transport: the HTTP ports' pipeline and the tcp and tls channels' message
 * path share one set of dependencies and one route sender table, so neither can be built without the other's parts.
 */
import type { Logger } from 'pino';
import type { AuditRecorder } from '../audit/recorder.js';
import type { RefusedNodeAudit } from '../audit/refused-nodes.js';
import type { LiveEvents } from '../events/live.js';
import type { RouteSenders } from '../routing/senders.js';
import type { Bodies } from '../storage/bodies/bodies.js';
import type { TransactionIdFactory, TransactionLog } from '../storage/transactions.js';
import type { RefusalSink } from '../domain/operations/refusals.js';
import type { Admission } from './admission.js';
import type { UnfinishedTransactions } from './unfinished.js';
import type { ClientAuthenticator } from './authenticate.js';
import type { ChannelCache } from './channel-cache.js';
import { Pipeline } from './index.js';
import type { PipelineLimits } from './index.js';
import { MessagePipeline } from './message.js';

export interface TransactionPathsDeps {
  channels: ChannelCache;
  clientAuth: ClientAuthenticator;
  log: TransactionLog;
  bodies: Bodies;
  audit: AuditRecorder;
  events: LiveEvents;
  /** Each path logs as its own component (`pipeline`, `messages`). */
  logger: Logger;
  newId: TransactionIdFactory;
  senders: RouteSenders;
  limits: PipelineLimits & {
    /** The longest answer read from an `http` route of a tcp or tls channel (`tcp.maxMessageBytes`). */
    maxReplyBytes: number;
  };
  refusedNodes?: RefusedNodeAudit | undefined;
  admission?: Admission | undefined;
  /** Where every refused request or message is recorded (issue 35). */
  refusals?: RefusalSink | undefined;
  /** Finishes, once the store answers again, a transaction whose last write failed. */
  unfinished?: Pick<UnfinishedTransactions, 'add'> | undefined;
}

export interface TransactionPaths {
  /** HTTP requests from the transaction ports, and replays of HTTP and polling channels' transactions. */
  pipeline: Pipeline;
  /** Whole messages from tcp and tls channels' listeners, and their replays. */
  messages: MessagePipeline;
}

export function transactionPaths(deps: TransactionPathsDeps): TransactionPaths {
  const { limits, refusedNodes, admission, refusals, unfinished } = deps;
  const shared = {
    clientAuth: deps.clientAuth,
    log: deps.log,
    bodies: deps.bodies,
    senders: deps.senders,
    events: deps.events,
    newId: deps.newId,
    ...(refusedNodes === undefined ? {} : { refusedNodes }),
    ...(admission === undefined ? {} : { admission }),
    ...(refusals === undefined ? {} : { refusals }),
    ...(unfinished === undefined ? {} : { unfinished }),
  };
  return {
    pipeline: new Pipeline({
      ...shared,
      channels: deps.channels,
      audit: deps.audit,
      logger: deps.logger.child({ component: 'pipeline' }),
      limits: { bodyCapBytes: limits.bodyCapBytes, matchBodyLimitBytes: limits.matchBodyLimitBytes, defaultTimeoutMs: limits.defaultTimeoutMs },
    }),
    messages: new MessagePipeline({
      ...shared,
      logger: deps.logger.child({ component: 'messages' }),
      limits: { bodyCapBytes: limits.bodyCapBytes, defaultTimeoutMs: limits.defaultTimeoutMs, maxReplyBytes: limits.maxReplyBytes },
    }),
  };
}
