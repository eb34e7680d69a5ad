/**
 * Transaction documents as SQLite text. JSON has no dates, so a Date is written as `{"$date": <epoch ms>}`; field
 * names starting with `$` are refused on the way in (toStorable), so that shape never collides with data.
 */

/** Serialises a stored document, keeping its Dates recognisable. */
export function encodeDocument(doc: unknown): string {
  return JSON.stringify(doc, function replace(this: Record<string, unknown>, key: string, value: unknown) {
    // `value` is already the Date's ISO string here; the holder still has the Date itself.
    const raw = this[key];
    return raw instanceof Date ? { $date: raw.getTime() } : value;
  });
}

/** Parses a stored document back, turning `{"$date": ms}` into Dates. */
export function decodeDocument<T>(text: string): T {
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const date = (value as { $date?: unknown }).$date;
      if (typeof date === 'number' && Object.keys(value).length === 1) return new Date(date);
    }
    return value;
  }) as T;
}
