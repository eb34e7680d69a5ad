/** Walks the config schema: the leaf keys everything else (env names, docs, messages) is derived from. */
import { isPlainObject } from '../domain/util/plain-object.js';
import { configSchema } from './schema.js';

/** The subset of JSON Schema the config schema uses, for reading it without TypeBox's generic types. */
export interface JsonSchema {
  type?: string;
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  uniqueItems?: boolean;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  default?: unknown;
  description?: string;
  defaultText?: string;
  secret?: boolean;
  /** What is missing for this key to work; only its default is accepted until then. */
  unavailable?: string;
}

export interface Leaf {
  /** Dotted path, e.g. `api.port`. */
  key: string;
  schema: JsonSchema;
  secret: boolean;
}

export const rootSchema = configSchema as unknown as JsonSchema;

function collect(schema: JsonSchema, prefix: string, out: Leaf[]): void {
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const key = prefix === '' ? name : `${prefix}.${name}`;
    if (child.type === 'object' && child.properties !== undefined) collect(child, key, out);
    else out.push({ key, schema: child, secret: child.secret === true });
  }
}

let cached: readonly Leaf[] | undefined;

/** Every leaf key of the schema, in schema order. */
export function configLeaves(): readonly Leaf[] {
  if (cached === undefined) {
    const out: Leaf[] = [];
    collect(rootSchema, '', out);
    cached = out;
  }
  return cached;
}

/** The schema of a dotted path (leaf or section), or undefined when the path is not a known key. */
export function schemaAt(key: string): JsonSchema | undefined {
  let schema: JsonSchema | undefined = rootSchema;
  if (key === '') return schema;
  for (const part of key.split('.')) {
    schema = Object.hasOwn(schema?.properties ?? {}, part) ? schema?.properties?.[part] : undefined;
    if (schema === undefined) return undefined;
  }
  return schema;
}

/** The value at a dotted path, or undefined when any step is missing or not an object. */
export function getPath(root: unknown, key: string): unknown {
  let value = root;
  for (const part of key.split('.')) {
    if (!isPlainObject(value) || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return value;
}

/** Sets a value at a dotted path; returns false when a step is not an object (the validator reports that). */
export function setPath(root: Record<string, unknown>, key: string, value: unknown): boolean {
  const parts = key.split('.');
  const last = parts.pop() as string;
  let target: Record<string, unknown> = root;
  for (const part of parts) {
    const next = Object.hasOwn(target, part) ? target[part] : undefined;
    if (next === undefined) {
      const created: Record<string, unknown> = {};
      define(target, part, created);
      target = created;
    } else if (isPlainObject(next)) target = next;
    else return false;
  }
  define(target, last, value);
  return true;
}

/** Defines an own property; plain assignment of a `__proto__` key from parsed JSON would change the prototype. */
export function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The schema defaults as a nested object (keys without a static default, like dataDir, are left out). */
export function schemaDefaults(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const leaf of configLeaves()) {
    if (leaf.schema.default !== undefined) setPath(out, leaf.key, structuredClone(leaf.schema.default));
  }
  return out;
}
