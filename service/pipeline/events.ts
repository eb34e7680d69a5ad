/** Live transaction events (the console's live feed subscribes to these through the websocket). */
import { EventEmitter } from 'node:events';
import type { TransactionStatus } from '../domain/transaction-status.js';

export interface TransactionEvent {
  transactionId: string;
  channelID: string;
  status: TransactionStatus;
  method: string;
  path: string;
  /** Response status code, once known. */
  responseStatus?: number;
}

interface EventMap {
  'transaction.started': [TransactionEvent];
  'transaction.completed': [TransactionEvent];
}

/** Typed emitter of transaction start and completion. */
export class TransactionEvents extends EventEmitter<EventMap> {}
