/**
 * The rules for free-form values a caller sends: user settings, mediator configuration values, bulk re-run filters.
 * No schema describes them field by field, yet they are stored as they are, so they must be shallow and small enough
 * to copy without exhausting the stack, have keys a store can hold, and hold only finite numbers. Pure.
 */

export interface FreeFormLimits {
  /** Levels of objects and arrays inside the value; the value itself is level 1. */
  maxDepth: number;
  /** Values inside it, counted over every level (objects, arrays and scalars alike). */
  maxValues: number;
  maxKeyLength: number;
  maxStringLength: number;
  /** Keys must be storable field names (no leading $, no dot); off for values that are read but never stored. */
  storableKeys: boolean;
}

export const DEFAULT_FREE_FORM_LIMITS: FreeFormLimits = { maxDepth: 16, maxValues: 2000, maxKeyLength: 100, maxStringLength: 65_536, storableKeys: true };

export interface FreeFormProblem {
  /** Keys and indexes from the value to the offending part; empty for the value itself. */
  at: readonly string[];
  message: string;
}

/** Why a key cannot be stored as a field name, or null when it can. */
export function freeFormKeyProblem(key: string, maxKeyLength = DEFAULT_FREE_FORM_LIMITS.maxKeyLength): string | null {
  // Worded to follow the key's own path (`body.settings.a.b is not a usable map key…`), as the console shows it.
  const rule = `keys must be 1 to ${maxKeyLength} characters, not start with $ and not contain a dot`;
  if (key === '') return `has an empty key: ${rule}`;
  if (key.length > maxKeyLength || key.startsWith('$') || key.includes('.')) return `is not a usable map key: ${rule}`;
  // Assigning it would replace the prototype of a copy instead of storing a field.
  if (key === '__proto__') return 'is a reserved key and cannot be used';
  return null;
}

interface Pending {
  value: unknown;
  at: readonly string[];
  depth: number;
}

/** The first rule a free-form value breaks (depth, size, key names, non-finite numbers), or null when it keeps them all. */
export function freeFormProblem(value: unknown, limits: FreeFormLimits = DEFAULT_FREE_FORM_LIMITS): FreeFormProblem | null {
  // An explicit stack rather than recursion: the value may be nested far deeper than the call stack allows.
  const stack: Pending[] = [{ value, at: [], depth: 1 }];
  let values = 1;
  while (stack.length > 0) {
    const { value: item, at, depth } = stack.pop() as Pending;
    if (typeof item === 'number' && !Number.isFinite(item)) return { at, message: 'must be a finite number' };
    if (typeof item === 'string' && item.length > limits.maxStringLength) return { at, message: `must be at most ${limits.maxStringLength} characters long` };
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limits.maxDepth) return { at, message: `is nested too deeply: objects and arrays may nest at most ${limits.maxDepth} levels` };
    const keys = Array.isArray(item) ? null : Object.keys(item);
    values += keys === null ? (item as unknown[]).length : keys.length;
    if (values > limits.maxValues) return { at: [], message: `must hold at most ${limits.maxValues} values in all` };
    if (keys === null) {
      (item as unknown[]).forEach((child, i) => stack.push({ value: child, at: [...at, String(i)], depth: depth + 1 }));
      continue;
    }
    for (const key of keys) {
      const problem = limits.storableKeys ? freeFormKeyProblem(key, limits.maxKeyLength) : null;
      // Named at the key itself (an empty key can only be named through its object).
      if (problem !== null) return { at: key === '' ? at : [...at, key.slice(0, 120)], message: problem };
      stack.push({ value: (item as Record<string, unknown>)[key], at: [...at, key], depth: depth + 1 });
    }
  }
  return null;
}
