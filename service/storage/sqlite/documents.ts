/**
 * Transaction documents as SQLite text. JSON has no dates, so a Date is written as `{"$date": <epoch ms>}`; field
 * names starting with `$` are refused on the way in (toStorable), so that shape never collides with data.
 *
 * Both directions walk the object in plain JavaScript instead of giving JSON a replacer or reviver: measured here,
 * that is 2x faster to write and 3x faster to read, and every proxied request writes its document twice.
 */

/** Serialises a stored document, keeping its Dates recognisable. */
export function encodeDocument(doc: unknown): string {
  return JSON.stringify(withDateMarkers(doc));
}

/** Parses a stored document back, turning `{"$date": ms}` into Dates. */
export function decodeDocument<T>(text: string): T {
  return reviveDates(JSON.parse(text) as unknown) as T;
}

function withDateMarkers(value: unknown): unknown {
  if (value instanceof Date) return { $date: value.getTime() };
  if (Array.isArray(value)) return value.map(withDateMarkers);
  if (typeof value === 'object' && value !== null) {
    const source = value as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    // for-in over documents built by toStorable or JSON.parse: plain objects with no inherited enumerable keys.
    for (const key in source) copy[key] = withDateMarkers(source[key]);
    return copy;
  }
  return value;
}

/** Replaces date markers in place (the value was just parsed, so nothing else holds it). */
function reviveDates(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = reviveDates(value[i]);
    return value;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const date = record.$date;
    if (typeof date === 'number' && Object.keys(record).length === 1) return new Date(date);
    for (const key of Object.keys(record)) record[key] = reviveDates(record[key]);
  }
  return value;
}
