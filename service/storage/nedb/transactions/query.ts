/** Translating a `TransactionFilter` into one NeDB query (run in each partition) plus the days it can touch. */
import { isTransactionStatus, parseStatusPattern } from '../../../domain/transaction-status.js';
import { StoreError } from '../../store.js';
import type { Condition } from '../../store.js';
import type { TransactionFilter } from '../../transactions.js';
import { fieldNameProblem, isPlainObject } from '../documents.js';
import { toNedbQuery } from '../filter.js';
import type { NedbQuery } from '../filter.js';
import { dayOf } from './ids.js';

export const COLLECTION = 'transactions';
/** Newest first; the id breaks ties so pages and stream batches are stable. */
export const NEWEST_FIRST = { 'request.timestamp': -1, _id: -1 } as const;
// Long patterns are where catastrophic backtracking hides; a path filter never needs this much.
const MAX_PATH_PATTERN = 500;
const KNOWN = new Set(['status', 'statusCode', 'channelID', 'clientID', 'method', 'path', 'from', 'to', 'properties', 'wasRerun']);

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
  if (!isPlainObject(filter)) throw new StoreError(`${COLLECTION}: the filter must be an object`);
  for (const key of Object.keys(filter)) if (!KNOWN.has(key)) throw new StoreError(`${COLLECTION}: unknown filter "${key}"`);
  const conditions: Record<string, Condition> = {};
  const result: TransactionQuery = { query: {} };
  if (filter.status !== undefined) {
    const statuses = stringList(filter.status, 'status');
    const bad = statuses.find((s) => !isTransactionStatus(s));
    if (bad !== undefined) throw new StoreError(`${COLLECTION}: status "${bad}" is not a transaction status`);
    conditions.status = { $in: statuses };
  }
  if (filter.statusCode !== undefined) {
    const code: unknown = filter.statusCode;
    const range = typeof code === 'string' || typeof code === 'number' ? parseStatusPattern(code) : null;
    if (range === null) throw new StoreError(`${COLLECTION}: statusCode "${String(code)}" must be a status code such as 404 or a class such as 5xx`);
    conditions['response.status'] = { $gte: range.min, $lte: range.max };
  }
  if (filter.channelID !== undefined) {
    const channels = stringList(filter.channelID, 'channelID');
    conditions.channelID = { $in: channels };
    result.channels = new Set(channels);
  }
  if (filter.clientID !== undefined) conditions.clientID = text(filter.clientID, 'clientID');
  // Methods are stored upper-case, so this compares case-insensitively and can stay an equality.
  if (filter.method !== undefined) conditions['request.method'] = text(filter.method, 'method').toUpperCase();
  if (filter.from !== undefined || filter.to !== undefined) {
    const range: { $gte?: Date; $lte?: Date } = {};
    if (filter.from !== undefined) range.$gte = date(filter.from, 'from');
    if (filter.to !== undefined) range.$lte = date(filter.to, 'to');
    conditions['request.timestamp'] = range;
    if (range.$gte !== undefined) result.fromDay = dayOf(range.$gte);
    if (range.$lte !== undefined) result.toDay = dayOf(range.$lte);
  }
  if (filter.properties !== undefined) {
    if (!isPlainObject(filter.properties)) throw new StoreError(`${COLLECTION}: properties must be an object of name: value`);
    for (const [name, value] of Object.entries(filter.properties)) {
      // A dot would silently turn the name into a nested path.
      const problem = fieldNameProblem(name);
      if (problem !== null) throw new StoreError(`${COLLECTION}: property name "${name}" ${problem}`);
      conditions[`properties.${name}`] = text(value, `properties.${name}`);
    }
  }
  if (filter.wasRerun !== undefined) {
    if (typeof filter.wasRerun !== 'boolean') throw new StoreError(`${COLLECTION}: wasRerun must be true or false`);
    // A transaction that was never re-run has no wasRerun field at all.
    conditions.wasRerun = filter.wasRerun ? true : { $ne: true };
  }
  result.query = toNedbQuery(COLLECTION, conditions);
  // Added after the translation, which (rightly) refuses regular expressions from general callers.
  if (filter.path !== undefined) result.query['request.path'] = { $regex: pathPattern(filter.path) };
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

function pathPattern(value: unknown): RegExp {
  const pattern = text(value, 'path');
  if (pattern.length > MAX_PATH_PATTERN) throw new StoreError(`${COLLECTION}: the path pattern is longer than ${MAX_PATH_PATTERN} characters`);
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new StoreError(`${COLLECTION}: the path pattern is not a valid regular expression: ${(err as Error).message}`, { cause: err });
  }
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new StoreError(`${COLLECTION}: ${name} must be a string`);
  return value;
}

function stringList(value: unknown, name: string): string[] {
  if (!Array.isArray(value)) throw new StoreError(`${COLLECTION}: ${name} must be an array of strings`);
  return value.map((item: unknown) => text(item, name));
}

function date(value: unknown, name: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new StoreError(`${COLLECTION}: ${name} must be a valid Date`);
  return value;
}
