/** Preparing transaction documents for a partition: validated copies whose day matches their id. */
import { isTransactionStatus } from '../../../domain/transaction-status.js';
import { StoreError, UniqueConstraintError } from '../../store.js';
import type { TransactionRecord } from '../../transactions.js';
import { isPlainObject, toStorable } from '../documents.js';
import { describeError, isSystemError, isUniqueViolation, wrapError } from '../errors.js';
import { dayOf, dayOfId, newTransactionId } from './ids.js';
import { COLLECTION } from './query.js';

export type StoredTransaction = Record<string, unknown> & { _id: string; channelID: string; status: string };

/** A storable copy of a new transaction and its partition day; throws StoreError when it cannot be stored. */
export function toStoredTransaction(doc: TransactionRecord): { stored: StoredTransaction; day: string } {
  const stored = toStorable(COLLECTION, doc, '') as Record<string, unknown>;
  const day = requestDay(stored.request, 'request');
  if (stored._id === undefined) stored._id = newTransactionId((stored.request as { timestamp: Date }).timestamp);
  // The partition of a lookup by id comes from the id, so both must name the same day.
  if (dayOfId(stored._id) !== day) {
    throw new StoreError(`${COLLECTION}: _id must be 24 hex characters starting with the request time (use newTransactionId(request.timestamp))`);
  }
  if (typeof stored.channelID !== 'string' || stored.channelID === '') throw new StoreError(`${COLLECTION}: channelID must be a non-empty string`);
  checkStatus(stored.status);
  return { stored: stored as StoredTransaction, day };
}

/** Checks the fields of an update's `$set` that decide where a transaction lives and how it is found. */
export function checkSetFields(set: Record<string, unknown>, day: string): void {
  if (set.request !== undefined && requestDay(set.request, 'set.request') !== day) {
    throw new StoreError(`${COLLECTION}: an update cannot move request.timestamp to another day`);
  }
  if (set.channelID !== undefined && (typeof set.channelID !== 'string' || set.channelID === '')) {
    throw new StoreError(`${COLLECTION}: channelID must be a non-empty string`);
  }
  if (set.status !== undefined) checkStatus(set.status);
}

/** Maps an error of a partition write to a StoreError. */
export function writeError(action: string, err: unknown): StoreError {
  if (isUniqueViolation(err)) return new UniqueConstraintError(COLLECTION, '_id', { cause: err });
  if (isSystemError(err)) {
    return new StoreError(`${COLLECTION}: the ${action} could not be written to disk (${describeError(err)}); it stays in memory and is saved by the next compaction`, { cause: err });
  }
  return wrapError(COLLECTION, action, err);
}

/** Validates a stored request and upper-cases its method (the method filter compares upper-case). */
function requestDay(request: unknown, where: string): string {
  if (!isPlainObject(request) || !(request.timestamp instanceof Date)) throw new StoreError(`${COLLECTION}: ${where}.timestamp must be a Date`);
  if (typeof request.method === 'string') request.method = request.method.toUpperCase();
  return dayOf(request.timestamp);
}

function checkStatus(status: unknown): void {
  if (!isTransactionStatus(status)) throw new StoreError(`${COLLECTION}: status "${String(status)}" is not a transaction status`);
}
