/**
 * The one test for "a `{}`-style object" used by every validator: parsed JSON, configuration files, query strings
 * and stored documents all produce plain objects, so arrays, Dates, class instances and RegExps are refused.
 */

/** True for `{}`-style objects (prototype `Object.prototype` or null); arrays, Dates and class instances are not plain. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
