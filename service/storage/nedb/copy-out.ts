/**
 * Copying documents out of NeDB. NeDB hands back the objects it keeps in memory (its own deep copy shares their
 * Dates), so a caller changing what it read would change the stored document until the next restart. Documents go
 * in through `toStorable` (storage/documents.ts) and come out through this copy.
 */

/** Deep-copies a document read from NeDB so the caller never holds an object (or Date) that NeDB keeps. */
export function copyOut<T>(doc: unknown): T {
  return copyValue(doc) as T;
}

function copyValue(value: unknown): unknown {
  if (value instanceof Date) return new Date(value.getTime());
  if (Array.isArray(value)) return value.map(copyValue);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = copyValue(item);
    return copy;
  }
  return value;
}

