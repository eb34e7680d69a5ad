/**
 * The live event bus: what the console's live feed (the `/ws` websocket) pushes. Producers emit typed events here;
 * nothing in the producers knows who listens.
 */
import { EventEmitter } from 'node:events';
import type { LiveTransaction } from '../contracts/live-feed.js';
import type { TaskOutcome, TaskStatus } from '../domain/transactions/tasks.js';
import type { FinishedTransaction } from '../domain/transactions/visualizer-events.js';

/** A transaction started or completed: what the live feed sends (the wire shape is the contract's). */
export type TransactionEvent = LiveTransaction;

/**
 * What counters of completions (the Prometheus exposition) need beyond the live feed's event. It travels as the
 * event's second argument, so the live feed, which sends only the first, never puts it on the wire.
 */
export interface CompletionDetail {
  channelName: string;
  /** The name of the client that sent the request; absent when none did (a public channel, a polling tick). */
  clientName?: string;
  /** Response timestamp minus request timestamp, in milliseconds; absent when the transaction has no response. */
  responseTimeMs?: number;
  /** The transaction as finally recorded (its routes and orchestrations draw the visualizer's events); absent when it could not be read back. */
  transaction?: FinishedTransaction;
  /** The instance that handled the transaction, when it was another one and the event was relayed (service/cluster/live-relay.ts). */
  relayedFrom?: string;
}

/** A transaction's response time as the metrics count it (response minus request timestamp, never below 0), or undefined without a response. */
export function responseTimeOf(record: { request: { timestamp: Date }; response?: { timestamp: Date } } | null | undefined): number | undefined {
  if (record?.response === undefined) return undefined;
  return Math.max(0, record.response.timestamp.getTime() - record.request.timestamp.getTime());
}

export interface MediatorHeartbeatEvent {
  urn: string;
  name: string;
  uptime: number;
  at: Date;
}

export interface TaskProgressEvent {
  taskId: string;
  status: TaskStatus;
  totalTransactions: number;
  processed: number;
  remaining: number;
  /** Re-run with a Successful new transaction (the task's succeededTransactions). */
  succeeded?: number;
  /** Not re-run, or re-run with a Failed new transaction (the task's failedTransactions). */
  failed?: number;
  /** The task's outcome from these counts. */
  outcome?: TaskOutcome;
}

/**
 * A transaction failed its last allowed auto retry (the channel's autoRetryMaxAttempts), so it is not retried again.
 * The alert condition `auto-retry-max-attempted` fires on this.
 */
export interface AutoRetryMaxAttemptedEvent {
  /** The transaction of the last attempt. */
  transactionId: string;
  channelID: string;
  /** Retries made (the transaction's autoRetryAttempt). */
  attempts: number;
  maxAttempts: number;
  at: Date;
}

export interface LiveEventMap {
  'transaction.started': [TransactionEvent];
  'transaction.completed': [TransactionEvent, CompletionDetail];
  'mediator.heartbeat': [MediatorHeartbeatEvent];
  'task.progress': [TaskProgressEvent];
  'transaction.autoRetryMaxAttempted': [AutoRetryMaxAttemptedEvent];
}

/** Typed emitter of everything the live feed shows. */
export class LiveEvents extends EventEmitter<LiveEventMap> {
  /**
   * The one place a finished transaction is announced, whoever finished it (the pipeline, or an API write taking it
   * out of Processing): the live feed listens here, and so can anything else that counts completions.
   */
  completed(event: TransactionEvent, detail: CompletionDetail): void {
    this.emit('transaction.completed', event, detail);
  }
}
