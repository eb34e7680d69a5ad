/**
 * A normalised transaction filter (storage/transaction-filter.ts) on PostgreSQL: the conditions SQL can decide
 * exactly go into the WHERE clause as bound parameters; the regular expressions (the request's path and query
 * string, and every route or orchestration condition, which may hold one) are tested in JavaScript on the rows the
 * SQL kept. PostgreSQL's own `~` is a different regular expression language from the one the API accepts
 * (domain/util/safe-pattern.ts: JavaScript syntax, run in linear time), so a pattern means the same thing on every engine.
 */
import type { NormalisedExchangeFilter, NormalisedFilter } from '../transaction-filter.js';
import type { ExchangeRecord, TransactionRecord } from '../transactions.js';
import { Params } from './filter.js';
import { searchSource } from './search-where.js';
import type { WordsPlan } from './search-where.js';

export interface LogConditions {
  /** A SQL boolean over the `transactions` table's columns and `doc`; `TRUE` when nothing is asked. */
  sql: string;
  params: Params;
  /** The part only JavaScript decides, or null when the SQL decides everything. */
  test: ((record: TransactionRecord) => boolean) | null;
  /**
   * What the statement reads: `transactions`, or, for a search (keys or words, search-where.ts), the matching index
   * rows newest first joined to it. Either way `transactions`' columns are read unqualified.
   */
  from: string;
  /** The columns the rows go newest first by (`ORDER BY ts DESC, id DESC` and the keyset of a batch). */
  order: { ts: string; id: string };
}

/** Translates a normalised filter; nothing from it is ever written into the SQL text. */
export function toLogConditions(filter: NormalisedFilter, wordsPlan: WordsPlan = 'collect'): LogConditions {
  const params = new Params();
  const parts: string[] = [];
  const oneOf = (column: string, values: readonly string[]): void => {
    // One value as plain equality: an `= ANY` over an index does not give rows in index order, so no ordered scan.
    if (values.length === 0) parts.push('FALSE');
    else if (values.length === 1) parts.push(`${column} = ${params.add(values[0])}`);
    else parts.push(`${column} = ANY(${params.add(values)}::text[])`);
  };
  if (filter.statuses !== undefined) oneOf('status', filter.statuses);
  if (filter.channels !== undefined) oneOf('channel', filter.channels);
  if (filter.statusRange !== undefined) parts.push(`code BETWEEN ${params.add(filter.statusRange.min)} AND ${params.add(filter.statusRange.max)}`);
  if (filter.clientID !== undefined) parts.push(`client = ${params.add(filter.clientID)}`);
  if (filter.method !== undefined) parts.push(`method = ${params.add(filter.method)}`);
  if (filter.fromMs !== undefined) parts.push(`ts >= ${params.add(filter.fromMs)}`);
  if (filter.toMs !== undefined) parts.push(`ts <= ${params.add(filter.toMs)}`);
  if (filter.wasRerun !== undefined) parts.push(filter.wasRerun ? 'rerun' : 'NOT rerun');
  if (filter.host !== undefined) parts.push(`doc #>> '{request,host}' = ${params.add(filter.host)}`);
  if (filter.port !== undefined) parts.push(`doc #> '{request,port}' = to_jsonb(${params.add(filter.port)}::integer)`);
  if (filter.hasChildren !== undefined) {
    // CASE, not AND: SQL may evaluate AND's operands in any order, and jsonb_array_length fails on a non-array.
    const has = "(CASE WHEN jsonb_typeof(doc -> 'childIDs') = 'array' THEN jsonb_array_length(doc -> 'childIDs') > 0 ELSE FALSE END)";
    parts.push(filter.hasChildren ? has : `NOT ${has}`);
  }
  for (const [name, value] of filter.properties ?? []) {
    // `?` on a jsonb string tests the string itself, so the object test comes first.
    if (value === null) parts.push(`(CASE WHEN jsonb_typeof(doc -> 'properties') = 'object' THEN (doc -> 'properties') ? ${params.add(name)} ELSE FALSE END)`);
    else parts.push(`doc -> 'properties' -> ${params.add(name)} = to_jsonb(${params.add(value)}::text)`);
  }
  const source = searchSource(filter, params, wordsPlan);
  parts.push(...source.conditions);
  return { sql: parts.length === 0 ? 'TRUE' : parts.join(' AND '), params, test: javascriptTest(filter), from: source.from, order: source.order };
}

function javascriptTest(filter: NormalisedFilter): ((record: TransactionRecord) => boolean) | null {
  const { path, querystring, routes, orchestrations } = filter;
  if (path === undefined && querystring === undefined && routes === undefined && orchestrations === undefined) return null;
  return (record) => {
    const request = record.request as Partial<TransactionRecord['request']> | undefined;
    if (path !== undefined && !(typeof request?.path === 'string' && path.test(request.path))) return false;
    if (querystring !== undefined && !(typeof request?.querystring === 'string' && querystring.test(request.querystring))) return false;
    if (routes !== undefined && !anyExchange(record.routes, routes)) return false;
    if (orchestrations !== undefined && !anyExchange(record.orchestrations, orchestrations)) return false;
    return true;
  };
}

/** One exchange of the list meets every condition (no conditions: the list has an exchange). */
function anyExchange(list: unknown, filter: NormalisedExchangeFilter): boolean {
  if (!Array.isArray(list)) return false;
  return (list as Partial<ExchangeRecord>[]).some((exchange) => {
    const request = exchange.request as Partial<ExchangeRecord['request']> | undefined;
    const status = exchange.response?.status;
    if (filter.statusRange !== undefined && !(typeof status === 'number' && status >= filter.statusRange.min && status <= filter.statusRange.max)) return false;
    if (filter.host !== undefined && request?.host !== filter.host) return false;
    if (filter.port !== undefined && request?.port !== filter.port) return false;
    if (filter.path !== undefined && !(typeof request?.path === 'string' && filter.path.test(request.path))) return false;
    if (filter.querystring !== undefined && !(typeof request?.querystring === 'string' && filter.querystring.test(request.querystring))) return false;
    return true;
  });
}
