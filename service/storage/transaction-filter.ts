/**
 * Validating a `TransactionFilter` once, for every engine: each engine translates the normalised form into its own
 * query language, so a filter means the same thing whichever engine stores the log.
 */
import { isPlainObject } from '../domain/plain-object.js';
import { cachedPattern } from '../domain/safe-pattern.js';
import type { SafePattern } from '../domain/safe-pattern.js';
import { isTransactionStatus, parseStatusPattern } from '../domain/transaction-status.js';
import type { TransactionStatus } from '../domain/transaction-status.js';
import { StoreError } from './store.js';
import type { TransactionFilter } from './transactions.js';

const COLLECTION = 'transactions';
// A path filter never needs more; patterns run in linear time (safe-pattern.ts), but time grows with their size.
const MAX_PATH_PATTERN = 500;
const KNOWN = new Set(['status', 'statusCode', 'channelID', 'clientID', 'method', 'path', 'from', 'to', 'properties', 'wasRerun']);

/** A validated filter: every field is optional, and all present ones must hold. */
export interface NormalisedFilter {
  statuses?: TransactionStatus[];
  /** Inclusive response status range. */
  statusRange?: { min: number; max: number };
  channels?: string[];
  clientID?: string;
  /** Upper-case, as methods are stored. */
  method?: string;
  /** Runs in linear time; engines match it against `request.path`. */
  path?: SafePattern;
  /** Inclusive request time bounds in epoch milliseconds. */
  fromMs?: number;
  toMs?: number;
  properties?: [string, string][];
  wasRerun?: boolean;
}

/** Validates a filter; throws StoreError naming the problem for anything malformed. */
export function normaliseTransactionFilter(filter: TransactionFilter): NormalisedFilter {
  if (!isPlainObject(filter)) throw new StoreError(`${COLLECTION}: the filter must be an object`);
  for (const [key, value] of Object.entries(filter)) {
    if (!KNOWN.has(key) && value !== undefined) throw new StoreError(`${COLLECTION}: unknown filter "${key}"`);
  }
  const result: NormalisedFilter = {};
  if (filter.status !== undefined) {
    const statuses = stringList(filter.status, 'status');
    const bad = statuses.find((s) => !isTransactionStatus(s));
    if (bad !== undefined) throw new StoreError(`${COLLECTION}: status "${bad}" is not a transaction status`);
    result.statuses = statuses as TransactionStatus[];
  }
  if (filter.statusCode !== undefined) {
    const code: unknown = filter.statusCode;
    const range = typeof code === 'string' || typeof code === 'number' ? parseStatusPattern(code) : null;
    if (range === null) throw new StoreError(`${COLLECTION}: statusCode "${String(code)}" must be a status code such as 404 or a class such as 5xx`);
    result.statusRange = range;
  }
  if (filter.channelID !== undefined) result.channels = stringList(filter.channelID, 'channelID');
  if (filter.clientID !== undefined) result.clientID = text(filter.clientID, 'clientID');
  if (filter.method !== undefined) result.method = text(filter.method, 'method').toUpperCase();
  if (filter.path !== undefined) result.path = pathPattern(filter.path);
  if (filter.from !== undefined) result.fromMs = date(filter.from, 'from');
  if (filter.to !== undefined) result.toMs = date(filter.to, 'to');
  if (filter.properties !== undefined) {
    if (!isPlainObject(filter.properties)) throw new StoreError(`${COLLECTION}: properties must be an object of name: value`);
    result.properties = Object.entries(filter.properties).map(([name, value]) => {
      if (name === '' || name.startsWith('$') || name.includes('.')) throw new StoreError(`${COLLECTION}: property name "${name}" must be non-empty, without dots or a leading $`);
      return [name, text(value, `properties.${name}`)];
    });
  }
  if (filter.wasRerun !== undefined) {
    if (typeof filter.wasRerun !== 'boolean') throw new StoreError(`${COLLECTION}: wasRerun must be true or false`);
    result.wasRerun = filter.wasRerun;
  }
  return result;
}

function pathPattern(value: unknown): SafePattern {
  const pattern = text(value, 'path');
  if (pattern.length > MAX_PATH_PATTERN) throw new StoreError(`${COLLECTION}: the path pattern is longer than ${MAX_PATH_PATTERN} characters`);
  const compiled = cachedPattern(pattern);
  if (!compiled.ok) throw new StoreError(`${COLLECTION}: the path pattern ${compiled.reason}`);
  return compiled.pattern;
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new StoreError(`${COLLECTION}: ${name} must be a string`);
  return value;
}

function stringList(value: unknown, name: string): string[] {
  if (!Array.isArray(value)) throw new StoreError(`${COLLECTION}: ${name} must be an array of strings`);
  return value.map((item: unknown) => text(item, name));
}

function date(value: unknown, name: string): number {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new StoreError(`${COLLECTION}: ${name} must be a valid Date`);
  return value.getTime();
}
