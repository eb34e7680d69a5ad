/**
 * Start-up recovery of one transaction a stop (a crash, a SIGKILL, a power cut) left Processing: the rule every
 * engine's `TransactionLog.failInterrupted` applies. What its client was told decides (issue 12):
 *
 * - its client was answered (the pipeline committed `statusIfInterrupted` before the answer's last byte left): it
 *   gets that status, the status its answer implies with the routes still running counted as failed, and those routes
 *   are recorded as interrupted. A client that got a 200 never finds its transaction Failed, so a bulk re-run of
 *   Failed transactions cannot deliver it twice;
 * - otherwise its client got no complete answer: it is Failed, as the client saw it.
 */
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import type { ExchangeRecord, TransactionRecord } from './transactions.js';

export const INTERRUPTED = 'Interrupted: Junction stopped before the transaction completed';
export const ROUTE_INTERRUPTED = 'Interrupted: Junction stopped before this route finished';

/** The fields that finish an interrupted transaction, and whether `statusIfInterrupted` is to be removed. */
export interface InterruptedChanges {
  set: { status: TransactionStatus; error?: { message: string }; routes?: ExchangeRecord[] };
  unsetStatusIfInterrupted: boolean;
}

/** How to finish a transaction found Processing at start-up. */
export function finishInterrupted(record: Pick<TransactionRecord, 'statusIfInterrupted' | 'routes'>): InterruptedChanges {
  const status = record.statusIfInterrupted;
  if (status === undefined) return { set: { status: 'Failed', error: { message: INTERRUPTED } }, unsetStatusIfInterrupted: false };
  // A route recorded with its request only was still running when the client was answered.
  const routes = record.routes.map((route) => (route.response === undefined && route.error === undefined ? { ...route, error: { message: ROUTE_INTERRUPTED } } : route));
  return { set: { status, routes }, unsetStatusIfInterrupted: true };
}
