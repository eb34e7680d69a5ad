/** Transactions for tests that seed the log directly: whole records with chosen request times, statuses and response times. */
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import type { TransactionStatus } from '../../service/domain/transactions/transaction-status.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';

export interface FinishedOptions {
  channelID: string;
  /** The request's time, ISO 8601. */
  at: string;
  status: TransactionStatus;
  /** The response's status code; 500 for Failed and 200 otherwise when not given. */
  code?: number;
  /** Milliseconds from request to response. */
  responseMs: number;
  method?: string;
}

/** A finished transaction (with a response) whose id encodes its request time, as the pipeline would store it. */
export function finishedTransaction(options: FinishedOptions, overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  const timestamp = new Date(options.at);
  return {
    _id: newTransactionId(timestamp),
    channelID: options.channelID,
    clientIP: '127.0.0.1',
    status: options.status,
    canRerun: true,
    autoRetry: false,
    autoRetryAttempt: 0,
    routes: [],
    orchestrations: [],
    request: { path: '/x', querystring: '', method: options.method ?? 'POST', headers: {}, timestamp },
    response: { status: options.code ?? (options.status === 'Failed' ? 500 : 200), headers: {}, timestamp: new Date(timestamp.getTime() + options.responseMs) },
    ...overrides,
  };
}
