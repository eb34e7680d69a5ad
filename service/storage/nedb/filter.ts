/**
 * Translating our `Filter` into a NeDB query. Everything is validated first: NeDB would run `$where` functions and
 * regular expressions handed to it, so only the operators of `FieldOperators` and `$or` get through.
 *
 * Where NeDB's own semantics differ from the documented ones (MongoDB's), the translation compensates:
 * - `$ne` / `$nin` on an array field: NeDB matches when ANY element differs; we want "contains none".
 * - `$exists` on an array field: NeDB tests each element, so an empty array "does not exist".
 */
import { StoreError } from '../store.js';
import type { Filter } from '../store.js';
import { isPlainObject } from '../../domain/util/plain-object.js';
import { checkFieldPath, isScalar, ordered, scalar, scalarList } from '../filter-values.js';

export type NedbQuery = Record<string, unknown>;

type Operator = '$in' | '$nin' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$exists';
const operators: ReadonlySet<string> = new Set<Operator>(['$in', '$nin', '$ne', '$gt', '$gte', '$lt', '$lte', '$exists']);

/** Validates a filter and returns the equivalent NeDB query; throws StoreError for anything outside the query language. */
export function toNedbQuery(collection: string, filter: Filter): NedbQuery {
  return translate(collection, filter, 'filter');
}

function translate(collection: string, filter: unknown, where: string): NedbQuery {
  if (!isPlainObject(filter)) throw new StoreError(`${collection}: ${where} must be an object`);
  const query: NedbQuery = {};
  // Conditions NeDB cannot express on a plain field key; kept apart so simple keys stay usable by NeDB's indexes.
  const and: NedbQuery[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === '$or') {
      if (!Array.isArray(condition)) throw new StoreError(`${collection}: ${where}: $or needs an array of filters`);
      query.$or = condition.map((sub: unknown, i) => translate(collection, sub, `${where}.$or[${i}]`));
      continue;
    }
    checkFieldPath(collection, key, where);
    translateCondition(collection, key, condition, query, and, `${where}.${key}`);
  }
  if (and.length > 0) query.$and = and;
  return query;
}

function translateCondition(collection: string, path: string, condition: unknown, query: NedbQuery, and: NedbQuery[], where: string): void {
  if (isScalar(condition)) {
    query[path] = condition;
    return;
  }
  if (!isPlainObject(condition)) throw new StoreError(`${collection}: ${where}: expected a string, number, boolean, Date, null or operators`);
  const direct: Record<string, unknown> = {};
  for (const [op, value] of Object.entries(condition)) {
    if (value === undefined) continue;
    if (!operators.has(op)) throw new StoreError(`${collection}: ${where}: unknown operator ${op}`);
    switch (op as Operator) {
      case '$in':
        direct.$in = scalarList(collection, value, `${where}.$in`);
        break;
      case '$nin':
        and.push({ $not: { [path]: { $in: scalarList(collection, value, `${where}.$nin`) } } });
        break;
      case '$ne':
        and.push({ $not: { [path]: scalar(collection, value, `${where}.$ne`) } });
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        direct[op] = ordered(collection, value, `${where}.${op}`);
        break;
      case '$exists': {
        if (typeof value !== 'boolean') throw new StoreError(`${collection}: ${where}.$exists must be true or false`);
        const exists = { $or: [{ [path]: { $exists: true } }, { [path]: { $size: 0 } }] };
        and.push(value ? exists : { $not: exists });
        break;
      }
    }
  }
  if (Object.keys(direct).length > 0) query[path] = direct;
}
