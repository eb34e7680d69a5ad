/**
 * Validating a `TransactionFilter` once, for every engine: each engine translates the normalised form into its own
 * query language, so a filter means the same thing whichever engine stores the log.
 */
import { isPlainObject } from '../domain/util/plain-object.js';
import { cachedPattern } from '../domain/util/safe-pattern.js';
import type { SafePattern } from '../domain/util/safe-pattern.js';
import { isTransactionStatus, parseStatusPattern } from '../domain/transactions/transaction-status.js';
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import { StoreError } from './store.js';
import type { TransactionFilter } from './transactions.js';
import { MAX_KEY_LENGTH, SEARCHABLE_KEY_NAMES, normaliseKeyValue } from '../domain/clinical/clinical-key.js';
import type { KeyCondition } from '../domain/clinical/clinical-key.js';

const COLLECTION = 'transactions';
// A path filter never needs more (the API allows 500 plus an inline `(?i)`); patterns run in linear time
// (safe-pattern.ts), but time grows with their size.
const MAX_PATH_PATTERN = 510;
const KNOWN = new Set(['status', 'statusCode', 'channelID', 'clientID', 'method', 'path', 'querystring', 'host', 'port', 'from', 'to', 'properties', 'wasRerun', 'hasChildren', 'routes', 'orchestrations', 'keys', 'text']);
const EXCHANGE_KEYS = new Set(['statusCode', 'host', 'port', 'path', 'querystring']);

/** Validated conditions on one route or orchestration. */
export interface NormalisedExchangeFilter {
  statusRange?: { min: number; max: number };
  host?: string;
  port?: number;
  path?: SafePattern;
  querystring?: SafePattern;
}

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
  /** Runs in linear time; engines match it against `request.querystring`. */
  querystring?: SafePattern;
  host?: string;
  port?: number;
  /** Inclusive request time bounds in epoch milliseconds. */
  fromMs?: number;
  toMs?: number;
  /** Name and value; a null value: the property is set, whatever its value. */
  properties?: [string, string | null][];
  wasRerun?: boolean;
  hasChildren?: boolean;
  routes?: NormalisedExchangeFilter;
  orchestrations?: NormalisedExchangeFilter;
  /** Clinical key conditions, values and authorities normalised (`normaliseKeyValue`); all must hold. */
  keys?: KeyCondition[];
  /** The words of a full-text search, normalised to lower case, at least one, each at most MAX_KEY_LENGTH long. */
  words?: string[];
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
  if (filter.statusCode !== undefined) result.statusRange = statusRange(filter.statusCode, 'statusCode');
  if (filter.channelID !== undefined) result.channels = stringList(filter.channelID, 'channelID');
  if (filter.clientID !== undefined) result.clientID = text(filter.clientID, 'clientID');
  if (filter.method !== undefined) result.method = text(filter.method, 'method').toUpperCase();
  if (filter.path !== undefined) result.path = pathPattern(filter.path, 'path');
  if (filter.querystring !== undefined) result.querystring = pathPattern(filter.querystring, 'querystring');
  if (filter.host !== undefined) result.host = text(filter.host, 'host');
  if (filter.port !== undefined) result.port = port(filter.port, 'port');
  if (filter.from !== undefined) result.fromMs = date(filter.from, 'from');
  if (filter.to !== undefined) result.toMs = date(filter.to, 'to');
  if (filter.properties !== undefined) {
    if (!isPlainObject(filter.properties)) throw new StoreError(`${COLLECTION}: properties must be an object of name: value`);
    result.properties = Object.entries(filter.properties).map(([name, value]) => {
      if (name === '' || name.startsWith('$') || name.includes('.')) throw new StoreError(`${COLLECTION}: property name "${name}" must be non-empty, without dots or a leading $`);
      return [name, value === null ? null : text(value, `properties.${name}`)];
    });
  }
  if (filter.wasRerun !== undefined) result.wasRerun = flag(filter.wasRerun, 'wasRerun');
  if (filter.hasChildren !== undefined) result.hasChildren = flag(filter.hasChildren, 'hasChildren');
  if (filter.routes !== undefined) result.routes = exchange(filter.routes, 'routes');
  if (filter.orchestrations !== undefined) result.orchestrations = exchange(filter.orchestrations, 'orchestrations');
  if (filter.keys !== undefined) result.keys = keyConditions(filter.keys);
  if (filter.text !== undefined) result.words = words(filter.text);
  return result;
}

const SEARCHABLE = new Set<string>([...SEARCHABLE_KEY_NAMES, 'any']);
const MAX_WORDS = 16;

function keyConditions(value: unknown): KeyCondition[] {
  if (!Array.isArray(value)) throw new StoreError(`${COLLECTION}: keys must be an array of key conditions`);
  return value.map((item: unknown) => {
    if (!isPlainObject(item)) throw new StoreError(`${COLLECTION}: each key condition must be an object`);
    const name = text(item.name, 'keys.name');
    if (!SEARCHABLE.has(name)) throw new StoreError(`${COLLECTION}: key "${name}" is not one of ${[...SEARCHABLE].join(', ')}`);
    const keyValue = normaliseKeyValue(text(item.value, `keys.${name}`));
    if (keyValue === '') throw new StoreError(`${COLLECTION}: the ${name} to find must not be empty`);
    const condition: KeyCondition = { name: name as KeyCondition['name'], value: keyValue };
    if (item.authority !== undefined) {
      const authority = normaliseKeyValue(text(item.authority, `keys.${name}.authority`));
      if (authority === '') throw new StoreError(`${COLLECTION}: the authority of ${name} must not be empty`);
      condition.authority = authority;
    }
    return condition;
  });
}

/** Splits a search into words the way the engines' tokenisers do (letters and digits), dropping everything else. */
function words(value: unknown): string[] {
  const found = text(value, 'text').normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (found.length === 0) throw new StoreError(`${COLLECTION}: text must contain at least one letter or digit`);
  if (found.length > MAX_WORDS) throw new StoreError(`${COLLECTION}: text may hold at most ${MAX_WORDS} words`);
  return found.map((word) => word.slice(0, MAX_KEY_LENGTH));
}

function exchange(value: unknown, name: string): NormalisedExchangeFilter {
  if (!isPlainObject(value)) throw new StoreError(`${COLLECTION}: ${name} must be an object of conditions`);
  const unknown = Object.keys(value).find((key) => !EXCHANGE_KEYS.has(key) && value[key] !== undefined);
  if (unknown !== undefined) throw new StoreError(`${COLLECTION}: unknown filter "${name}.${unknown}"`);
  const result: NormalisedExchangeFilter = {};
  if (value.statusCode !== undefined) result.statusRange = statusRange(value.statusCode, `${name}.statusCode`);
  if (value.host !== undefined) result.host = text(value.host, `${name}.host`);
  if (value.port !== undefined) result.port = port(value.port, `${name}.port`);
  if (value.path !== undefined) result.path = pathPattern(value.path, `${name}.path`);
  if (value.querystring !== undefined) result.querystring = pathPattern(value.querystring, `${name}.querystring`);
  return result;
}

function statusRange(code: unknown, name: string): { min: number; max: number } {
  const range = typeof code === 'string' || typeof code === 'number' ? parseStatusPattern(code) : null;
  if (range === null) throw new StoreError(`${COLLECTION}: ${name} "${String(code)}" must be a status code such as 404 or a class such as 5xx`);
  return range;
}

function port(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) throw new StoreError(`${COLLECTION}: ${name} must be a port number`);
  return value;
}

function flag(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw new StoreError(`${COLLECTION}: ${name} must be true or false`);
  return value;
}

function pathPattern(value: unknown, name: string): SafePattern {
  const pattern = text(value, name);
  if (pattern.length > MAX_PATH_PATTERN) throw new StoreError(`${COLLECTION}: the ${name} pattern is longer than ${MAX_PATH_PATTERN} characters`);
  const compiled = cachedPattern(pattern);
  if (!compiled.ok) throw new StoreError(`${COLLECTION}: the ${name} pattern ${compiled.reason}`);
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
