/**
 * Documents as jsonb. JSON has no dates, so a Date is kept as `{"$date": <epoch milliseconds>}`: no stored field
 * name can start with `$` (storage/documents.ts refuses them), so the marker can never be confused with data, and the
 * number keeps Dates ordered and comparable in SQL and jsonpath.
 */
import { toStorable } from '../documents.js';

/** The jsonb form of a value already checked by `toStorable`. */
export function encode(value: unknown): unknown {
  if (value instanceof Date) return { $date: value.getTime() };
  if (Array.isArray(value)) return value.map(encode);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = encode(item);
    return out;
  }
  return value;
}

/** Checks a caller's document for storage and returns its jsonb form. */
export function encodeDocument(collection: string, doc: unknown): Record<string, unknown> {
  return encode(toStorable(collection, doc, '')) as Record<string, unknown>;
}

/** A document read back: `{"$date": n}` becomes a Date again; everything else is already a fresh copy from pg. */
export function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === '$date' && typeof record.$date === 'number') return new Date(record.$date);
    for (const key of keys) record[key] = decode(record[key]);
    return record;
  }
  return value;
}
