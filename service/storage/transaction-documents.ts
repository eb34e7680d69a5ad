/**
 * Checking transaction documents, for every engine: a new transaction's id must encode its request day (lookups,
 * retention and recovery find a transaction's day from its id alone), and no update may move it to another day.
 */
import { isPlainObject } from '../domain/util/plain-object.js';
import { isTransactionStatus } from '../domain/transactions/transaction-status.js';
import { toStorable } from './documents.js';
import { StoreError } from './store.js';
import { dayOf, dayOfId, newTransactionId } from './transaction-ids.js';
import type { TransactionPush, TransactionRecord } from './transactions.js';

const COLLECTION = 'transactions';

export type StoredTransaction = Record<string, unknown> & { _id: string; channelID: string; status: string };

/** A storable copy of a new transaction and its request day; throws StoreError when it cannot be stored. */
export function toStoredTransaction(doc: TransactionRecord): { stored: StoredTransaction; day: string } {
  const stored = toStorable(COLLECTION, doc, '') as Record<string, unknown>;
  const day = requestDay(stored.request, 'request');
  if (stored._id === undefined) stored._id = newTransactionId((stored.request as { timestamp: Date }).timestamp);
  // A lookup by id takes the day from the id, so both must name the same day.
  if (dayOfId(stored._id) !== day) {
    throw new StoreError(`${COLLECTION}: _id must be 24 hex characters starting with the request time (use newTransactionId(request.timestamp))`);
  }
  if (typeof stored.channelID !== 'string' || stored.channelID === '') throw new StoreError(`${COLLECTION}: channelID must be a non-empty string`);
  checkStatus(stored.status);
  return { stored: stored as StoredTransaction, day };
}

/** Checks the fields of an update's `set` that decide where a transaction lives and how it is found. */
export function checkSetFields(set: Record<string, unknown>, day: string): void {
  if (set.request !== undefined && requestDay(set.request, 'set.request') !== day) {
    throw new StoreError(`${COLLECTION}: an update cannot move request.timestamp to another day`);
  }
  if (set.channelID !== undefined && (typeof set.channelID !== 'string' || set.channelID === '')) {
    throw new StoreError(`${COLLECTION}: channelID must be a non-empty string`);
  }
  if (set.status !== undefined) checkStatus(set.status);
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

/**
 * Applies a checked update to a stored transaction in place, as every engine must: `set`, then `unset`, then the
 * `push` appended to the stored routes and orchestrations, and the request method upper-cased. Returns the record.
 */
export function applyTransactionChanges(record: Record<string, unknown>, update: { set: Record<string, unknown>; unset: readonly string[] }, push: { routes: unknown[]; orchestrations: unknown[] }): TransactionRecord {
  Object.assign(record, update.set);
  for (const field of update.unset) delete record[field];
  for (const field of ['routes', 'orchestrations'] as const) {
    if (push[field].length > 0) record[field] = [...((record[field] as unknown[] | undefined) ?? []), ...push[field]];
  }
  const updated = record as unknown as TransactionRecord;
  if (typeof updated.request.method === 'string') updated.request.method = updated.request.method.toUpperCase();
  return updated;
}

/** A storable copy of an update's `push` (routes and orchestrations to append); throws StoreError when it cannot be stored. */
export function toStoredPush(push: TransactionPush | undefined): { routes: unknown[]; orchestrations: unknown[] } {
  const stored = { routes: [] as unknown[], orchestrations: [] as unknown[] };
  if (push === undefined) return stored;
  if (!isPlainObject(push)) throw new StoreError(`${COLLECTION}: changes.push must be an object`);
  for (const [field, items] of Object.entries(push)) {
    if (field !== 'routes' && field !== 'orchestrations') throw new StoreError(`${COLLECTION}: changes.push can append to routes and orchestrations only, not "${field}"`);
    if (items === undefined) continue;
    if (!Array.isArray(items)) throw new StoreError(`${COLLECTION}: changes.push.${field} must be an array`);
    for (const [i, item] of items.entries()) {
      if (!isPlainObject(item) || typeof item.name !== 'string') throw new StoreError(`${COLLECTION}: changes.push.${field}[${i}] must be an exchange with a name`);
      requestDay(item.request, `push.${field}[${i}].request`);
    }
    stored[field] = toStorable(COLLECTION, items, `push.${field}`) as unknown[];
  }
  return stored;
}

/** A record's filter columns, as every engine indexes them: id, time, channel, client, status, response code, method, path, re-run. */
export type TransactionColumns = [id: string, ts: number, channel: string, client: string | null, status: string, code: number | null, method: string, path: string, rerun: boolean];

/** The filter columns of a record, in the order of `TransactionColumns`. */
export function transactionColumns(record: TransactionRecord): TransactionColumns {
  return [
    record._id,
    record.request.timestamp.getTime(),
    record.channelID,
    record.clientID ?? null,
    record.status,
    record.response?.status ?? null,
    record.request.method,
    record.request.path,
    record.wasRerun === true,
  ];
}
