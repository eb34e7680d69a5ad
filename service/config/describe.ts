/** Human wording of what a key allows, shared by error messages and the reference table. */
import type { JsonSchema } from './leaves.js';

function quoteList(values: readonly unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

/** What a value must be, phrased to follow "must be", e.g. `an integer between 1 and 65535`. */
export function allowedText(schema: JsonSchema): string {
  if (schema.enum !== undefined) return `one of ${quoteList(schema.enum)}`;
  switch (schema.type) {
    case 'boolean':
      return 'true or false';
    case 'integer':
      return `an integer between ${schema.minimum ?? '-∞'} and ${schema.maximum ?? '∞'}`;
    case 'string':
      if ((schema.minLength ?? 0) > 1) return `a string of at least ${schema.minLength} characters`;
      return schema.minLength === 1 ? 'a non-empty string' : 'a string';
    case 'array': {
      const items = schema.items ?? {};
      const what =
        items.enum !== undefined
          ? `${schema.uniqueItems === true ? 'distinct ' : ''}values from ${quoteList(items.enum)}`
          : `${schema.uniqueItems === true ? 'distinct ' : ''}strings`;
      const size = schema.minItems ?? 0;
      return `${size === 1 ? 'a non-empty list' : size > 1 ? `a list of at least ${size}` : 'a list'} of ${what}`;
    }
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}

/** A short type label for the reference table, e.g. `integer 1–65535`. */
export function typeLabel(schema: JsonSchema): string {
  let label: string;
  if (schema.enum !== undefined) label = schema.enum.map(String).join(' | ');
  else if (schema.type === 'integer') label = `integer ${schema.minimum}–${schema.maximum}`;
  else if (schema.type === 'array') {
    const items = schema.items?.enum;
    label = items !== undefined ? `list of ${items.map(String).join(', ')}` : 'list of strings';
  } else if (schema.type === 'string' && (schema.minLength ?? 0) > 1) label = `string, at least ${schema.minLength} characters`;
  else if (schema.type === 'string' && schema.minLength === 1) label = 'non-empty string';
  else label = schema.type ?? 'value';
  return schema.secret === true ? `${label}, secret` : label;
}
