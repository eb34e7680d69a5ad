/** Translating a `TransactionFilter` into one NeDB query (run in each partition) plus the days it can touch. */
import type { Condition } from '../../store.js';
import type { TransactionFilter } from '../../transactions.js';
import { normaliseTransactionFilter } from '../../transaction-filter.js';
import { toNedbQuery } from '../filter.js';
import type { NedbQuery } from '../filter.js';
import { dayOf } from './ids.js';

export const COLLECTION = 'transactions';
/** Newest first; the id breaks ties so pages and stream batches are stable. */
export const NEWEST_FIRST = { 'request.timestamp': -1, _id: -1 } as const;

export interface TransactionQuery {
  query: NedbQuery;
  /** Inclusive UTC day bounds; absent means open-ended. */
  fromDay?: string;
  toDay?: string;
  /** The channel filter, used to skip days whose index shows none of them. */
  channels?: ReadonlySet<string>;
}

/** Validates a filter and translates it; throws StoreError for anything malformed, before any partition is loaded. */
export function toTransactionQuery(filter: TransactionFilter): TransactionQuery {
  const f = normaliseTransactionFilter(filter);
  const conditions: Record<string, Condition> = {};
  const result: TransactionQuery = { query: {} };
  if (f.statuses !== undefined) conditions.status = { $in: f.statuses };
  if (f.statusRange !== undefined) conditions['response.status'] = { $gte: f.statusRange.min, $lte: f.statusRange.max };
  if (f.channels !== undefined) {
    conditions.channelID = { $in: f.channels };
    result.channels = new Set(f.channels);
  }
  if (f.clientID !== undefined) conditions.clientID = f.clientID;
  // Methods are stored upper-case, so this compares case-insensitively and can stay an equality.
  if (f.method !== undefined) conditions['request.method'] = f.method;
  if (f.fromMs !== undefined || f.toMs !== undefined) {
    const range: { $gte?: Date; $lte?: Date } = {};
    if (f.fromMs !== undefined) range.$gte = new Date(f.fromMs);
    if (f.toMs !== undefined) range.$lte = new Date(f.toMs);
    conditions['request.timestamp'] = range;
    if (range.$gte !== undefined) result.fromDay = dayOf(range.$gte);
    if (range.$lte !== undefined) result.toDay = dayOf(range.$lte);
  }
  for (const [name, value] of f.properties ?? []) conditions[`properties.${name}`] = value;
  // A transaction that was never re-run has no wasRerun field at all.
  if (f.wasRerun !== undefined) conditions.wasRerun = f.wasRerun ? true : { $ne: true };
  result.query = toNedbQuery(COLLECTION, conditions);
  // Added after the translation, which (rightly) refuses functions from general callers. A function, not NeDB's
  // $regex: that would run V8's backtracking RegExp, and the pattern must run in linear time (safe-pattern.ts).
  const pattern = f.path;
  if (pattern !== undefined) {
    result.query.$where = function (this: { request?: { path?: unknown } }): boolean {
      const path = this.request?.path;
      return typeof path === 'string' && pattern.test(path);
    };
  }
  return result;
}

/** The query for the documents after `last` in newest-first order (keyset paging survives concurrent inserts). */
export function olderThan(query: NedbQuery, last: { timestamp: Date; id: string }): NedbQuery {
  const keyset = {
    $or: [{ 'request.timestamp': { $lt: last.timestamp } }, { 'request.timestamp': last.timestamp, _id: { $lt: last.id } }],
  };
  const and = Array.isArray(query.$and) ? (query.$and as unknown[]) : [];
  return { ...query, $and: [...and, keyset] };
}




