/** Translating a normalised transaction filter into an SQL condition over the transactions table's columns. */
import type { NormalisedExchangeFilter, NormalisedFilter } from '../transaction-filter.js';

export type SqlValue = string | number;

export interface SqlCondition {
  /** An expression usable after WHERE; `1` when the filter has no conditions. */
  sql: string;
  params: SqlValue[];
}

/**
 * A filter as two conditions: on the indexed columns, and (null when the filter has none) on what only the stored
 * document holds (the request's host, port and query string, properties, child ids, routes and orchestrations).
 * The second parses each row's JSON, so the log runs it over bounded windows of the rows the first keeps.
 */
export function toSqlConditions(filter: NormalisedFilter): { columns: SqlCondition; document: SqlCondition | null } {
  const { host, port, hasChildren, properties, querystring, routes, orchestrations, ...rest } = filter;
  const inDocument: NormalisedFilter = { host, port, hasChildren, properties, querystring, routes, orchestrations };
  const document = toSqlCondition(inDocument);
  return { columns: toSqlCondition(rest), document: document.sql === '1' ? null : document };
}

/** Builds the WHERE expression of a filter; values are always bound, never spliced into the SQL. */
export function toSqlCondition(filter: NormalisedFilter): SqlCondition {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  const add = (sql: string, ...values: SqlValue[]): void => {
    parts.push(sql);
    params.push(...values);
  };
  const oneOf = (column: string, values: readonly string[]): void => {
    // `IN ()` is a syntax error in SQLite; an empty list matches nothing.
    if (values.length === 0) add('0');
    else add(`${column} IN (${values.map(() => '?').join(', ')})`, ...values);
  };
  if (filter.statuses !== undefined) oneOf('status', filter.statuses);
  if (filter.channels !== undefined) oneOf('channel', filter.channels);
  if (filter.statusRange !== undefined) add('code BETWEEN ? AND ?', filter.statusRange.min, filter.statusRange.max);
  if (filter.clientID !== undefined) add('client = ?', filter.clientID);
  if (filter.method !== undefined) add('method = ?', filter.method);
  if (filter.fromMs !== undefined) add('ts >= ?', filter.fromMs);
  if (filter.toMs !== undefined) add('ts <= ?', filter.toMs);
  if (filter.wasRerun !== undefined) add(filter.wasRerun ? 'rerun = 1' : 'rerun = 0');
  if (filter.host !== undefined) add("json_extract(doc, '$.request.host') = ?", filter.host);
  if (filter.port !== undefined) add("json_extract(doc, '$.request.port') = ?", filter.port);
  if (filter.hasChildren !== undefined) add(`COALESCE(json_array_length(doc, '$.childIDs'), 0) ${filter.hasChildren ? '>' : '='} 0`);
  for (const [name, value] of filter.properties ?? []) {
    // json_each compares the key as data, so a property name needs no escaping inside a JSON path.
    if (value === null) add("EXISTS (SELECT 1 FROM json_each(doc, '$.properties') WHERE key = ?)", name);
    else add("EXISTS (SELECT 1 FROM json_each(doc, '$.properties') WHERE key = ? AND type = 'text' AND value = ?)", name, value);
  }
  // Last, so SQLite evaluates the JSON walks and the JavaScript regular expressions only on rows the cheaper
  // (indexed) conditions kept.
  if (filter.path !== undefined) add('regexp(?, path)', filter.path.source);
  if (filter.querystring !== undefined) add("regexp(?, json_extract(doc, '$.request.querystring'))", filter.querystring.source);
  for (const list of ['routes', 'orchestrations'] as const) {
    const exchange = filter[list];
    if (exchange !== undefined) add(...exchangeCondition(list, exchange));
  }
  return { sql: parts.length === 0 ? '1' : parts.join(' AND '), params };
}

/** One route (or orchestration) of the transaction must meet every condition: one EXISTS over the list. */
function exchangeCondition(list: 'routes' | 'orchestrations', filter: NormalisedExchangeFilter): [string, ...SqlValue[]] {
  const inner: string[] = [];
  const params: SqlValue[] = [];
  const field = (path: string) => `json_extract(e.value, '$.${path}')`;
  const add = (sql: string, ...values: SqlValue[]): void => {
    inner.push(sql);
    params.push(...values);
  };
  if (filter.statusRange !== undefined) add(`${field('response.status')} BETWEEN ? AND ?`, filter.statusRange.min, filter.statusRange.max);
  if (filter.host !== undefined) add(`${field('request.host')} = ?`, filter.host);
  if (filter.port !== undefined) add(`${field('request.port')} = ?`, filter.port);
  if (filter.path !== undefined) add(`regexp(?, ${field('request.path')})`, filter.path.source);
  if (filter.querystring !== undefined) add(`regexp(?, ${field('request.querystring')})`, filter.querystring.source);
  return [`EXISTS (SELECT 1 FROM json_each(doc, '$.${list}') AS e${inner.length === 0 ? '' : ` WHERE ${inner.join(' AND ')}`})`, ...params];
}
