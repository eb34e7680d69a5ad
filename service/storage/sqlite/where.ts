/** Translating a normalised transaction filter into an SQL condition over the transactions table's columns. */
import type { NormalisedFilter } from '../transaction-filter.js';

export type SqlValue = string | number;

export interface SqlCondition {
  /** An expression usable after WHERE; `1` when the filter has no conditions. */
  sql: string;
  params: SqlValue[];
}

/** Builds the WHERE expression of a filter; values are always bound, never spliced into the SQL. */
export function toSqlCondition(filter: NormalisedFilter): SqlCondition {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  const oneOf = (column: string, values: readonly string[]): void => {
    // `IN ()` is a syntax error in SQLite; an empty list matches nothing.
    if (values.length === 0) parts.push('0');
    else {
      parts.push(`${column} IN (${values.map(() => '?').join(', ')})`);
      params.push(...values);
    }
  };
  if (filter.statuses !== undefined) oneOf('status', filter.statuses);
  if (filter.channels !== undefined) oneOf('channel', filter.channels);
  if (filter.statusRange !== undefined) {
    parts.push('code BETWEEN ? AND ?');
    params.push(filter.statusRange.min, filter.statusRange.max);
  }
  if (filter.clientID !== undefined) {
    parts.push('client = ?');
    params.push(filter.clientID);
  }
  if (filter.method !== undefined) {
    parts.push('method = ?');
    params.push(filter.method);
  }
  if (filter.fromMs !== undefined) {
    parts.push('ts >= ?');
    params.push(filter.fromMs);
  }
  if (filter.toMs !== undefined) {
    parts.push('ts <= ?');
    params.push(filter.toMs);
  }
  if (filter.wasRerun !== undefined) parts.push(filter.wasRerun ? 'rerun = 1' : 'rerun = 0');
  for (const [name, value] of filter.properties ?? []) {
    // json_each compares the key as data, so a property name needs no escaping inside a JSON path.
    parts.push("EXISTS (SELECT 1 FROM json_each(doc, '$.properties') WHERE key = ? AND type = 'text' AND value = ?)");
    params.push(name, value);
  }
  if (filter.path !== undefined) {
    // Last, so SQLite evaluates the JavaScript regular expression only on rows the cheaper conditions kept.
    parts.push('regexp(?, path)');
    params.push(filter.path.source);
  }
  return { sql: parts.length === 0 ? '1' : parts.join(' AND '), params };
}
