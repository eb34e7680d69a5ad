/**
 * Transaction documents as SQLite text. JSON has no dates, so a Date is written as `{"$date": <epoch ms>}`; field
 * names starting with `$` are refused on the way in (toStorable), so that shape never collides with data.
 *
 * Both directions walk the object in plain JavaScript instead of giving JSON a replacer or reviver: measured here,
 * that is 2x faster to write and 3x faster to read, and every proxied request writes its document twice.
 */

import { StoreError } from '../store.js';

// toStorable bounds documents on the way in (64 levels); this bound only keeps a document from elsewhere from
// overflowing the stack of the recursive walks below.
const MAX_DEPTH = 128;

/** Serialises a stored document, keeping its Dates recognisable. */
export function encodeDocument(doc: unknown): string {
  return JSON.stringify(withDateMarkers(doc, 0));
}

/** Parses a stored document back, turning `{"$date": ms}` into Dates. */
export function decodeDocument<T>(text: string): T {
  return reviveDates(JSON.parse(text) as unknown, 0) as T;
}

function tooDeep(depth: number): void {
  if (depth >= MAX_DEPTH) throw new StoreError(`transactions: a document nests objects and arrays more than ${MAX_DEPTH} levels deep`);
}

function withDateMarkers(value: unknown, depth: number): unknown {
  if (value instanceof Date) return { $date: value.getTime() };
  if (Array.isArray(value)) {
    tooDeep(depth);
    return value.map((item: unknown) => withDateMarkers(item, depth + 1));
  }
  if (typeof value === 'object' && value !== null) {
    tooDeep(depth);
    const source = value as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    // for-in over documents built by toStorable or JSON.parse: plain objects with no inherited enumerable keys.
    for (const key in source) copy[key] = withDateMarkers(source[key], depth + 1);
    return copy;
  }
  return value;
}

/** Replaces date markers in place (the value was just parsed, so nothing else holds it). */
function reviveDates(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) {
    tooDeep(depth);
    for (let i = 0; i < value.length; i++) value[i] = reviveDates(value[i], depth + 1);
    return value;
  }
  if (typeof value === 'object' && value !== null) {
    tooDeep(depth);
    const record = value as Record<string, unknown>;
    const date = record.$date;
    if (typeof date === 'number' && Object.keys(record).length === 1) return new Date(date);
    for (const key of Object.keys(record)) record[key] = reviveDates(record[key], depth + 1);
  }
  return value;
}
