/**
 * Index-served pre-filters for the fields a collection indexes. The btree index on `doc #> '{field}'` (migration 1)
 * answers `=`, `= ANY` and ranges on that exact expression, with statistics PostgreSQL gathers for it, so a lookup
 * such as a session by tokenHash is an index scan instead of a sequential one. A pre-filter never decides a result:
 * it is ANDed with the jsonpath condition (filter.ts), so it only has to keep every document the jsonpath matches.
 *
 * Why each form keeps them all: jsonb `=` on a scalar is the jsonpath `==` (numbers by value, strings byte for byte,
 * Dates as the one-key object `{"$date": ms}`); jsonb orders numbers by value and one-key `$date` objects by their
 * milliseconds, so `>`/`<` keep every number or Date the jsonpath range keeps. An array field matches in jsonpath when
 * any element does, which no btree comparison of the whole array expresses: `jsonb_typeof(...) = 'array'` lets every
 * array through, served by the partial index of migration 2 that holds only the documents whose field is an array.
 * String ranges get no pre-filter: jsonb orders strings by the database's collation, jsonpath by code point.
 * Dotted paths get none either: jsonpath steps through arrays on the way (`alert.ruleKey` in a list of alerts),
 * `#>` does not.
 */
import { encode } from './documents.js';
import type { Params } from './filter.js';
import type { Scalar } from '../store.js';

/** The fields of a collection with an index on `doc #> '{field}'`: its spec's unique and indexed fields. */
export type IndexedFields = ReadonlySet<string>;

/** What a field condition asks, in the forms a pre-filter exists for: equality is `$in` with one value. */
export type Prefilter = { op: '$in'; values: readonly Scalar[] } | { op: '$gt' | '$gte' | '$lt' | '$lte'; value: string | number | Date };

const signs = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/** A plain field name, safe to write into SQL text (index matching needs the path as a literal, not a parameter). */
const PLAIN_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `(doc #> '{field}')`, written as migrations.ts writes it in the index, which the planner matches by expression. */
export function fieldExpression(field: string): string {
  return `(doc #> '{${field}}')`;
}

/** The predicate of the partial index of documents whose `field` is an array (migration 2). */
export function arrayPredicate(field: string): string {
  return `jsonb_typeof(${fieldExpression(field)}) = 'array'`;
}

/** A SQL condition keeping every document the condition could match, served by the field's indexes; null when none applies. */
export function indexPrefilter(field: string, prefilter: Prefilter, params: Params): string | null {
  if (!PLAIN_FIELD.test(field)) return null;
  const e = fieldExpression(field);
  let scalar: string;
  if (prefilter.op === '$in') {
    const values = prefilter.values.map(jsonText);
    scalar = values.length === 1 ? `${e} = ${params.add(values[0])}::jsonb` : `${e} = ANY(${params.add(values)}::jsonb[])`;
  } else {
    if (typeof prefilter.value === 'string') return null;
    scalar = `${e} ${signs[prefilter.op]} ${params.add(jsonText(prefilter.value))}::jsonb`;
  }
  return `(${scalar} OR ${arrayPredicate(field)})`;
}

/** pg sends a JavaScript string as it is, so a jsonb parameter is passed as its JSON text. */
function jsonText(value: Scalar): string {
  return JSON.stringify(encode(value));
}
