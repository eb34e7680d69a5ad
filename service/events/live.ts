/**
 * The live event bus: what the console's live feed (the `/ws` websocket) pushes. Producers emit typed events here;
 * nothing in the producers knows who listens.
 */
import { EventEmitter } from 'node:events';
import type { LiveTransaction } from '../contracts/live-feed.js';
import type { TaskStatus } from '../domain/tasks.js';

/** A transaction started or completed: what the live feed sends (the wire shape is the contract's). */
export type TransactionEvent = LiveTransaction;

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
  'transaction.completed': [TransactionEvent];
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
  completed(event: TransactionEvent): void {
    this.emit('transaction.completed', event);
  }
}
