/** Validating `FindOptions` and turning them into ORDER BY, LIMIT and OFFSET. */
import { StoreError } from '../store.js';
import type { FindOptions } from '../store.js';
import { isPlainObject } from '../../domain/util/plain-object.js';
import { checkFieldPath } from '../filter-values.js';
import type { Params } from './filter.js';

/**
 * The ORDER BY terms for one sort key. Values of different types sort in the embedded store's order (missing, null,
 * numbers, strings, booleans, Dates, arrays, objects), strings by code point (`COLLATE "C"`) as JavaScript compares
 * them, whatever the database's collation.
 */
function sortTerms(path: string, direction: 'ASC' | 'DESC'): string[] {
  const e = `(doc #> ${path}::text[])`;
  const isDate = `(jsonb_typeof(${e}) = 'object' AND ${e} ? '$date')`;
  return [
    `CASE WHEN ${e} IS NULL THEN 0 WHEN jsonb_typeof(${e}) = 'null' THEN 1 WHEN jsonb_typeof(${e}) = 'number' THEN 2 ` +
      `WHEN jsonb_typeof(${e}) = 'string' THEN 3 WHEN jsonb_typeof(${e}) = 'boolean' THEN 4 WHEN ${isDate} THEN 5 ` +
      `WHEN jsonb_typeof(${e}) = 'array' THEN 6 ELSE 7 END`,
    `CASE WHEN jsonb_typeof(${e}) = 'number' THEN (${e})::numeric WHEN ${isDate} THEN (${e} -> '$date')::numeric END`,
    `(CASE WHEN jsonb_typeof(${e}) = 'string' THEN ${e} #>> '{}' END) COLLATE "C"`,
    `CASE WHEN jsonb_typeof(${e}) = 'boolean' THEN (${e})::boolean END`,
    e,
  ].map((term) => `${term} ${direction}`);
}

/** Validates options and returns the SQL after WHERE; throws StoreError for a bad sort direction, skip or limit. */
export function toSqlTail(collection: string, options: FindOptions | undefined, params: Params): string {
  if (options === undefined) return 'ORDER BY id';
  if (!isPlainObject(options)) throw new StoreError(`${collection}: find options must be an object`);
  const order: string[] = [];
  if (options.sort !== undefined) {
    if (!isPlainObject(options.sort)) throw new StoreError(`${collection}: sort must be an object of field: 1 | -1`);
    for (const [field, direction] of Object.entries(options.sort)) {
      checkFieldPath(collection, field, 'sort');
      if (direction !== 1 && direction !== -1) throw new StoreError(`${collection}: sort.${field} must be 1 or -1`);
      order.push(...sortTerms(params.add(field.split('.')), direction === 1 ? 'ASC' : 'DESC'));
    }
  }
  // The id last, so equal keys come back in one repeatable order, page after page.
  order.push('id');
  let tail = `ORDER BY ${order.join(', ')}`;
  if (options.limit !== undefined) tail += ` LIMIT ${params.add(count(collection, 'limit', options.limit))}`;
  if (options.skip !== undefined) tail += ` OFFSET ${params.add(count(collection, 'skip', options.skip))}`;
  return tail;
}

function count(collection: string, name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new StoreError(`${collection}: ${name} must be a whole number of 0 or more`);
  }
  return value;
}
