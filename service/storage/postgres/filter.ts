/**
 * Translating our `Filter` into a SQL condition on the `doc` column. Everything is validated first, and nothing from
 * the filter is ever written into the SQL text: each field condition becomes a jsonpath, passed as a parameter and
 * tested with `doc @? $n`. PostgreSQL cannot use the btree expression indexes for `@?` and, lacking statistics for
 * it, costs the GIN index above a sequential scan; so on the fields a collection indexes (`IndexedFields`), equality,
 * `$in` and number or Date ranges also get an index-friendly pre-filter (index-lookups.ts), ANDed with the jsonpath,
 * which alone decides the result.
 *
 * jsonpath's lax mode gives the query language its semantics: a path steps into arrays of sub-documents
 * (`ops.path`), a comparison with an array field matches when any element matches, and values of different types
 * never compare (as in the embedded store). Dates are stored as `{"$date": ms}` (documents.ts) and compared by `ms`.
 */
import { StoreError } from '../store.js';
import type { Filter, Scalar } from '../store.js';
import { isPlainObject } from '../../domain/util/plain-object.js';
import { checkFieldPath, isScalar, ordered, scalar, scalarList } from '../filter-values.js';
import { indexPrefilter } from './index-lookups.js';
import type { IndexedFields, Prefilter } from './index-lookups.js';

/** The parameters of one statement, numbered in the order they are added. */
export class Params {
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder (`$1`, `$2`, ...). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

type Operator = '$in' | '$nin' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$exists';
const operators: ReadonlySet<string> = new Set<Operator>(['$in', '$nin', '$ne', '$gt', '$gte', '$lt', '$lte', '$exists']);
const comparisons = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** Validates a filter and returns a SQL boolean expression over `doc`; throws StoreError outside the query language. */
export function toSqlCondition(collection: string, filter: Filter, params: Params, indexed: IndexedFields = new Set()): string {
  return translate({ collection, params, indexed }, filter, 'filter');
}

/** What every step of one translation shares. */
interface Translation {
  collection: string;
  params: Params;
  indexed: IndexedFields;
}

function translate(t: Translation, filter: unknown, where: string): string {
  const { collection } = t;
  if (!isPlainObject(filter)) throw new StoreError(`${collection}: ${where} must be an object`);
  const parts: string[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === '$or') {
      if (!Array.isArray(condition)) throw new StoreError(`${collection}: ${where}: $or needs an array of filters`);
      const alternatives = condition.map((sub: unknown, i) => translate(t, sub, `${where}.$or[${i}]`));
      parts.push(alternatives.length === 0 ? 'FALSE' : `(${alternatives.join(' OR ')})`);
      continue;
    }
    checkFieldPath(collection, key, where);
    parts.push(...fieldConditions(t, key, condition, `${where}.${key}`));
  }
  return parts.length === 0 ? 'TRUE' : `(${parts.join(' AND ')})`;
}

function fieldConditions(t: Translation, field: string, condition: unknown, where: string): string[] {
  const { collection, params } = t;
  const path = jsonPath(field);
  const exists = (test: string): string => `(doc @? ${params.add(`${path} ? (${test})`)}::jsonpath)`;
  // The jsonpath decides; on an indexed field an index-served superset of its matches comes first. There the jsonpath
  // is written as the function `@?` stands for (silent, like `@?`), which the GIN index cannot serve: the planner
  // would otherwise add a costly GIN scan to the btree lookup it needs, misled by its guess at the selectivity of `@?`.
  const narrowed = (prefilter: Prefilter, test: string): string => {
    const fast = t.indexed.has(field) ? indexPrefilter(field, prefilter, params) : null;
    if (fast === null) return exists(test);
    return `(${fast} AND jsonb_path_exists(doc, ${params.add(`${path} ? (${test})`)}::jsonpath, '{}'::jsonb, true))`;
  };
  if (isScalar(condition)) return [narrowed({ op: '$in', values: [condition] }, equals(condition))];
  if (!isPlainObject(condition)) throw new StoreError(`${collection}: ${where}: expected a string, number, boolean, Date, null or operators`);
  const parts: string[] = [];
  for (const [op, value] of Object.entries(condition)) {
    if (value === undefined) continue;
    if (!operators.has(op)) throw new StoreError(`${collection}: ${where}: unknown operator ${op}`);
    switch (op as Operator) {
      case '$in':
      case '$nin': {
        const list = scalarList(collection, value, `${where}.${op}`);
        const test = list.map(equals).join(' || ');
        if (list.length === 0) parts.push(op === '$in' ? 'FALSE' : 'NOT FALSE');
        else parts.push(op === '$in' ? narrowed({ op: '$in', values: list }, test) : `NOT ${exists(test)}`);
        break;
      }
      case '$ne':
        // A missing field, and an array without the value, are both "not equal".
        parts.push(`NOT ${exists(equals(scalar(collection, value, `${where}.$ne`)))}`);
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const operand = ordered(collection, value, `${where}.${op}`);
        const sign = comparisons[op as keyof typeof comparisons];
        const test = operand instanceof Date ? `@."$date" ${sign} ${operand.getTime()}` : `@ ${sign} ${JSON.stringify(operand)}`;
        parts.push(narrowed({ op: op as keyof typeof comparisons, value: operand }, test));
        break;
      }
      case '$exists': {
        if (typeof value !== 'boolean') throw new StoreError(`${collection}: ${where}.$exists must be true or false`);
        const has = `(doc @? ${params.add(path)}::jsonpath)`;
        parts.push(value ? has : `NOT ${has}`);
        break;
      }
    }
  }
  return parts;
}

/** `$."a"."b"`: field names are quoted as jsonpath string literals, whose escapes are JSON's. */
function jsonPath(field: string): string {
  return `$${field.split('.').map((part) => `.${JSON.stringify(part)}`).join('')}`;
}

/** The jsonpath test for equality with one scalar (JSON literals are jsonpath literals). */
function equals(value: Scalar): string {
  if (value instanceof Date) return `@."$date" == ${value.getTime()}`;
  return `@ == ${JSON.stringify(value)}`;
}
