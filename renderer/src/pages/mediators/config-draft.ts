/**
 * The mediator configuration form's working copy. Config values are turned into drafts that can hold what a form
 * needs while editing (map rows with empty or repeated keys, numbers half typed, list items that remember where they
 * came from), and drafts are turned back into the config JSON with the problems that stop it being sent. Pure.
 */
import type { MediatorConfig, MediatorConfigDef } from '../../../../service/contracts/mediators';

/** What the API shows instead of a stored password (service/domain/util/password-mask.ts); sent back, it keeps it. */
export const PASSWORD_MASK = '********';

/** A single value: text (also a number being typed), number, true/false, or null for "not set". */
export type ScalarDraft = string | number | boolean | null;
export interface MapRow {
  id: string;
  key: string;
  value: string;
}
export interface MapDraft {
  kind: 'map';
  rows: MapRow[];
  /** The value existed before editing, so an empty map is still sent. */
  wasSet: boolean;
}
export interface StructDraft {
  kind: 'struct';
  fields: Record<string, Draft>;
  wasSet: boolean;
}
export interface ArrayItem {
  id: string;
  /** Index of this item in the stored list; null for an item added here. A stored password is matched by index. */
  origin: number | null;
  value: Draft;
}
export interface ArrayDraft {
  kind: 'array';
  items: ArrayItem[];
  wasSet: boolean;
}
export type Draft = ScalarDraft | MapDraft | StructDraft | ArrayDraft;
export type Drafts = Record<string, Draft>;

/** Problems keyed by field path (`servers.0.port`); map rows use `<path>#<row id>`. */
export type Problems = Record<string, string>;

let counter = 0;
/** A key for React lists and map rows. */
export function draftId(): string {
  counter += 1;
  return `d${counter}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function singleDraft(def: MediatorConfigDef, value: unknown): Draft {
  switch (def.type) {
    case 'map':
      return {
        kind: 'map',
        rows: isObject(value) ? Object.entries(value).map(([key, v]) => ({ id: draftId(), key, value: typeof v === 'string' ? v : String(v) })) : [],
        wasSet: isObject(value),
      };
    case 'struct': {
      const source = isObject(value) ? value : {};
      const fields: Record<string, Draft> = {};
      for (const field of def.template ?? []) fields[field.param] = toDraft(field, source[field.param]);
      return { kind: 'struct', fields, wasSet: isObject(value) };
    }
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'bool':
      return typeof value === 'boolean' ? value : null;
    case 'option':
      return typeof value === 'string' && (def.values ?? []).includes(value) ? value : null;
    default:
      return typeof value === 'string' ? value : null;
  }
}

/** The draft of one parameter's current value. */
export function toDraft(def: MediatorConfigDef, value: unknown): Draft {
  if (def.array !== true) return singleDraft(def, value);
  const list = Array.isArray(value) ? (value as unknown[]) : [];
  return { kind: 'array', items: list.map((item, i) => ({ id: draftId(), origin: i, value: singleDraft(def, item) })), wasSet: Array.isArray(value) };
}

/** Drafts of every defined parameter. */
export function toDrafts(defs: readonly MediatorConfigDef[], config: MediatorConfig): Drafts {
  const drafts: Drafts = {};
  for (const def of defs) drafts[def.param] = toDraft(def, config[def.param]);
  return drafts;
}

/** The value a new list item starts with. */
export function newItem(def: MediatorConfigDef): Draft {
  switch (def.type) {
    case 'map':
      return { kind: 'map', rows: [], wasSet: true };
    case 'struct': {
      const fields: Record<string, Draft> = {};
      for (const field of def.template ?? []) fields[field.param] = toDraft(field, undefined);
      return { kind: 'struct', fields, wasSet: true };
    }
    case 'bool':
      return false;
    case 'number':
      return null;
    case 'option':
      return def.values?.[0] ?? null;
    default:
      return '';
  }
}

interface Context {
  /** An enclosing list item is no longer at its stored index, so a mask inside it would keep the wrong password. */
  moved: boolean;
  /** Inside a list: an item has no "not set", so an empty number or option must be filled in or removed. */
  inList: boolean;
}

/** The JSON value of a draft (undefined = leave the parameter out), adding to `problems` what stops it being sent. */
function singleValue(def: MediatorConfigDef, draft: Draft, path: string, ctx: Context, problems: Problems): unknown {
  if (draft === null) {
    if (ctx.inList && def.type === 'number') problems[path] = 'Enter a number, or remove this item.';
    if (ctx.inList && def.type === 'option') problems[path] = 'Choose a value, or remove this item.';
    return undefined;
  }
  if (typeof draft !== 'object') {
    if (def.type === 'number') {
      const number = typeof draft === 'number' ? draft : Number(String(draft).trim());
      if (typeof draft === 'string' && draft.trim() === '') {
        if (ctx.inList) problems[path] = 'Enter a number, or remove this item.';
        return undefined;
      }
      if (!Number.isFinite(number)) {
        problems[path] = 'Enter a number, such as 10 or 2.5.';
        return undefined;
      }
      return number;
    }
    if (def.type === 'password' && draft === PASSWORD_MASK && ctx.moved) {
      problems[path] = 'Type this password again: the list changed above it, so the stored password cannot be matched to it.';
    }
    return draft;
  }
  if (draft.kind === 'map') {
    const seen = new Set<string>();
    const value: Record<string, string> = {};
    for (const row of draft.rows) {
      if (row.key === '') problems[`${path}#${row.id}`] = 'Enter a key, or remove this entry.';
      else if (seen.has(row.key)) problems[`${path}#${row.id}`] = `The key "${row.key}" is used twice; keys must differ.`;
      seen.add(row.key);
      value[row.key] = row.value;
    }
    return draft.rows.length === 0 && !draft.wasSet && !ctx.inList ? undefined : value;
  }
  if (draft.kind === 'struct') {
    const value: Record<string, unknown> = {};
    for (const field of def.template ?? []) {
      const fieldValue = draftValue(field, draft.fields[field.param] ?? null, `${path}.${field.param}`, { ...ctx, inList: false }, problems);
      if (fieldValue !== undefined) value[field.param] = fieldValue;
    }
    return Object.keys(value).length === 0 && !draft.wasSet && !ctx.inList ? undefined : value;
  }
  return undefined;
}

function draftValue(def: MediatorConfigDef, draft: Draft, path: string, ctx: Context, problems: Problems): unknown {
  if (def.array !== true) return singleValue(def, draft, path, ctx, problems);
  if (draft === null || typeof draft !== 'object' || draft.kind !== 'array') return undefined;
  const list = draft.items.map((item, i) => singleValue(def, item.value, `${path}.${i}`, { moved: ctx.moved || item.origin !== i, inList: true }, problems));
  return list.length === 0 && !draft.wasSet ? undefined : list;
}

/** The configuration to send, and the problems to fix first (empty when it can be sent). */
export function fromDrafts(defs: readonly MediatorConfigDef[], drafts: Drafts): { config: MediatorConfig; problems: Problems } {
  const problems: Problems = {};
  const config: MediatorConfig = {};
  for (const def of defs) {
    const value = draftValue(def, drafts[def.param] ?? null, def.param, { moved: false, inList: false }, problems);
    if (value !== undefined) config[def.param] = value;
  }
  return { config, problems };
}
