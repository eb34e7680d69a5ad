/**
 * Translating our `Filter` into a SQL condition on the `doc` column. Everything is validated first, and nothing from
 * the filter is ever written into the SQL text: each field condition becomes a jsonpath, passed as a parameter and
 * tested with `doc @? $n`. The table's GIN index (jsonb_path_ops) can serve the equality forms, but PostgreSQL 18
 * costs it above a sequential scan for a selective lookup on a 50,000-row table, and the btree expression indexes on
 * the spec's fields are not used by these conditions yet: giving lookups on those fields an index-friendly form is
 * a next step of issue 20 (sessions by tokenHash are read on every API request).
 *
 * jsonpath's lax mode gives the query language its semantics: a path steps into arrays of sub-documents
 * (`ops.path`), a comparison with an array field matches when any element matches, and values of different types
 * never compare (as in the embedded store). Dates are stored as `{"$date": ms}` (documents.ts) and compared by `ms`.
 */
import { StoreError } from '../store.js';
import type { Filter, Scalar } from '../store.js';
import { isPlainObject } from '../../domain/plain-object.js';
import { fieldNameProblem } from '../documents.js';

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
export function toSqlCondition(collection: string, filter: Filter, params: Params): string {
  return translate(collection, filter, params, 'filter');
}

/** Throws StoreError unless `path` is a usable (possibly dotted) field path. */
export function checkFieldPath(collection: string, path: string, where: string): void {
  for (const part of path.split('.')) {
    const problem = fieldNameProblem(part);
    if (problem !== null) {
      const what = part.startsWith('$') ? `unknown operator ${part}` : `field "${path}": a path segment ${problem}`;
      throw new StoreError(`${collection}: ${where}: ${what}`);
    }
  }
}

function translate(collection: string, filter: unknown, params: Params, where: string): string {
  if (!isPlainObject(filter)) throw new StoreError(`${collection}: ${where} must be an object`);
  const parts: string[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === '$or') {
      if (!Array.isArray(condition)) throw new StoreError(`${collection}: ${where}: $or needs an array of filters`);
      const alternatives = condition.map((sub: unknown, i) => translate(collection, sub, params, `${where}.$or[${i}]`));
      parts.push(alternatives.length === 0 ? 'FALSE' : `(${alternatives.join(' OR ')})`);
      continue;
    }
    checkFieldPath(collection, key, where);
    parts.push(...fieldConditions(collection, key, condition, params, `${where}.${key}`));
  }
  return parts.length === 0 ? 'TRUE' : `(${parts.join(' AND ')})`;
}

function fieldConditions(collection: string, field: string, condition: unknown, params: Params, where: string): string[] {
  const path = jsonPath(field);
  const exists = (test: string): string => `(doc @? ${params.add(`${path} ? (${test})`)}::jsonpath)`;
  if (isScalar(condition)) return [exists(equals(condition))];
  if (!isPlainObject(condition)) throw new StoreError(`${collection}: ${where}: expected a string, number, boolean, Date, null or operators`);
  const parts: string[] = [];
  for (const [op, value] of Object.entries(condition)) {
    if (value === undefined) continue;
    if (!operators.has(op)) throw new StoreError(`${collection}: ${where}: unknown operator ${op}`);
    switch (op as Operator) {
      case '$in':
      case '$nin': {
        const list = scalarList(collection, value, `${where}.${op}`);
        const any = list.length === 0 ? 'FALSE' : exists(list.map(equals).join(' || '));
        parts.push(op === '$in' ? any : `NOT ${any}`);
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
        parts.push(exists(operand instanceof Date ? `@."$date" ${sign} ${operand.getTime()}` : `@ ${sign} ${JSON.stringify(operand)}`));
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

function isScalar(value: unknown): value is Scalar {
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (typeof value === 'number') return Number.isFinite(value);
  return value === null || typeof value === 'string' || typeof value === 'boolean';
}

function scalar(collection: string, value: unknown, where: string): Scalar {
  if (!isScalar(value)) throw new StoreError(`${collection}: ${where} must be a string, number, boolean, Date or null`);
  return value;
}

function scalarList(collection: string, value: unknown, where: string): Scalar[] {
  if (!Array.isArray(value)) throw new StoreError(`${collection}: ${where} must be an array`);
  return value.map((item: unknown, i) => scalar(collection, item, `${where}[${i}]`));
}

/** Ranges compare like with like; null or booleans would silently never (or oddly) match. */
function ordered(collection: string, value: unknown, where: string): string | number | Date {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  throw new StoreError(`${collection}: ${where} must be a string, number or Date`);
}
