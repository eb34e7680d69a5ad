/**
 * Mediator configuration (SPEC.md "Mediator registration"): the rules for configuration definitions, the check of
 * values against them, password masking, and which values survive a new version of the definitions. Pure.
 */
import type { ValidationProblem } from '../../contracts/api.js';
import type { MediatorConfigDef } from '../../contracts/mediators.js';
import { CONFIG_TYPES } from '../../contracts/vocabulary.js';
import type { MediatorConfigType } from '../../contracts/vocabulary.js';
import { PASSWORD_MASK } from '../util/password-mask.js';
import { isPlainObject } from '../util/plain-object.js';

// The definitions' shape and types are the wire's (contracts/); they are offered here too, beside the rules that check them.
export { CONFIG_TYPES };
export type { MediatorConfigDef, MediatorConfigType };

export type ConfigValues = Record<string, unknown>;

// Names become field names of stored documents, which cannot contain a dot or start with $ (nor replace a prototype).
const KEY = /^[^.$][^.]{0,99}$/;

/** True when a parameter or map key can be stored as a field name. */
export function isStorableKey(name: string): boolean {
  return KEY.test(name) && name !== '__proto__';
}

const KEY_RULE = 'must be 1 to 100 characters, without a dot and not starting with $';

function defsProblems(defs: readonly MediatorConfigDef[], at: string, inTemplate: boolean): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const seen = new Map<string, number>();
  defs.forEach((def, i) => {
    const here = `${at}.${i}`;
    if (!isStorableKey(def.param)) problems.push({ path: `${here}.param`, message: KEY_RULE });
    const first = seen.get(def.param);
    if (first !== undefined) problems.push({ path: `${here}.param`, message: `repeats the param of definition ${first}` });
    else seen.set(def.param, i);
    if (def.type === 'option') {
      if (def.values === undefined || def.values.length === 0) problems.push({ path: `${here}.values`, message: 'is required for an option: the list of allowed values' });
      else if (new Set(def.values).size !== def.values.length) problems.push({ path: `${here}.values`, message: 'must not repeat a value' });
    }
    if (def.type === 'struct') {
      if (inTemplate) problems.push({ path: `${here}.type`, message: 'cannot be struct inside a struct template (structs do not nest)' });
      else if (def.template === undefined || def.template.length === 0) problems.push({ path: `${here}.template`, message: 'is required for a struct: the definitions of its fields' });
      else problems.push(...defsProblems(def.template, `${here}.template`, true));
    }
  });
  return problems;
}

/** Every rule the configuration definitions break (unique storable params, option values, struct templates without nesting). */
export function configDefProblems(defs: readonly MediatorConfigDef[], at: string): ValidationProblem[] {
  return defsProblems(defs, at, false);
}

function singleProblem(def: MediatorConfigDef, value: unknown, at: string): ValidationProblem[] {
  const problem = (message: string): ValidationProblem[] => [{ path: at, message }];
  switch (def.type) {
    case 'string':
    case 'bigstring':
    case 'password':
      return typeof value === 'string' ? [] : problem(`must be a string (${def.type})`);
    case 'bool':
      return typeof value === 'boolean' ? [] : problem('must be true or false (bool)');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : problem('must be a number');
    case 'option': {
      const values = def.values ?? [];
      return typeof value === 'string' && values.includes(value) ? [] : problem(`must be one of: ${values.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    case 'map': {
      if (!isPlainObject(value)) return problem('must be an object of string values (map)');
      const problems: ValidationProblem[] = [];
      for (const [key, item] of Object.entries(value)) {
        if (!isStorableKey(key)) problems.push({ path: `${at}.${key}`, message: `is not a usable map key: keys ${KEY_RULE}` });
        else if (typeof item !== 'string') problems.push({ path: `${at}.${key}`, message: 'must be a string (map values are strings)' });
      }
      return problems;
    }
    case 'struct': {
      if (!isPlainObject(value)) return problem('must be an object with the fields of the template (struct)');
      const template = def.template ?? [];
      const problems: ValidationProblem[] = [];
      for (const [key, item] of Object.entries(value)) {
        const field = template.find((t) => t.param === key);
        if (field === undefined) problems.push({ path: `${at}.${key}`, message: `is not a field of the template; use one of: ${template.map((t) => t.param).join(', ')}` });
        else problems.push(...valueProblems(field, item, `${at}.${key}`));
      }
      return problems;
    }
  }
}

/** Why a value does not fit its definition (null means "not set" and always fits); empty when it fits. */
export function valueProblems(def: MediatorConfigDef, value: unknown, at: string): ValidationProblem[] {
  if (value === null) return [];
  if (def.array !== true) return singleProblem(def, value, at);
  if (!Array.isArray(value)) return [{ path: at, message: `must be an array of ${def.type} values` }];
  return value.flatMap((item: unknown, i) => singleProblem(def, item, `${at}.${i}`));
}

/** Every parameter of `config` that has no definition or a value that does not fit it. */
export function configProblems(defs: readonly MediatorConfigDef[], config: ConfigValues, at: string): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  for (const [param, value] of Object.entries(config)) {
    const def = defs.find((d) => d.param === param);
    if (def === undefined) problems.push({ path: `${at}.${param}`, message: 'has no definition in configDefs' });
    else problems.push(...valueProblems(def, value, `${at}.${param}`));
  }
  return problems;
}

type PasswordVisitor = (value: string, stored: unknown, at: string) => unknown;

/** Copies a value, passing every password inside it (arrays and struct fields included) through `visit`. */
function mapPasswords(def: MediatorConfigDef, value: unknown, stored: unknown, visit: PasswordVisitor, at: string): unknown {
  const single = (item: unknown, previous: unknown, where: string): unknown => {
    if (def.type === 'password' && typeof item === 'string') return visit(item, previous, where);
    if (def.type === 'struct' && isPlainObject(item)) {
      const copy: ConfigValues = {};
      for (const [key, field] of Object.entries(item)) {
        const fieldDef = def.template?.find((t) => t.param === key);
        const before = isPlainObject(previous) ? previous[key] : undefined;
        copy[key] = fieldDef === undefined ? structuredClone(field) : mapPasswords(fieldDef, field, before, visit, `${where}.${key}`);
      }
      return copy;
    }
    return structuredClone(item);
  };
  if (def.array === true && Array.isArray(value)) {
    return value.map((item: unknown, i) => single(item, Array.isArray(stored) ? (stored as unknown[])[i] : undefined, `${at}.${i}`));
  }
  return single(value, stored, at);
}

function mapConfig(defs: readonly MediatorConfigDef[], config: ConfigValues, stored: ConfigValues, visit: PasswordVisitor, at: string): ConfigValues {
  const copy: ConfigValues = {};
  for (const [param, value] of Object.entries(config)) {
    const def = defs.find((d) => d.param === param);
    copy[param] = def === undefined ? structuredClone(value) : mapPasswords(def, value, stored[param], visit, `${at}.${param}`);
  }
  return copy;
}

/** The configuration as answers show it: every non-empty password replaced by the mask. */
export function maskConfig(defs: readonly MediatorConfigDef[], config: ConfigValues): ConfigValues {
  return mapConfig(defs, config, {}, (value) => (value === '' ? value : PASSWORD_MASK), '');
}

/**
 * Puts the stored password back wherever the mask was sent (same parameter, array index and struct field), so a
 * configuration fetched with GET can be sent back unchanged; a mask with no stored password behind it is a problem.
 */
export function unmaskConfig(defs: readonly MediatorConfigDef[], config: ConfigValues, stored: ConfigValues, at: string): { config: ConfigValues; problems: ValidationProblem[] } {
  const problems: ValidationProblem[] = [];
  const unmasked = mapConfig(
    defs,
    config,
    stored,
    (value, previous, where) => {
      if (value !== PASSWORD_MASK) return value;
      if (typeof previous === 'string') return previous;
      problems.push({ path: where, message: 'is the mask shown in answers, with no stored password behind it; send the real password' });
      return value;
    },
    at,
  );
  return { config: unmasked, problems };
}

/**
 * The configuration of a new version: its defaults, with every value already configured kept where the new
 * definitions still have the parameter and the value still fits them.
 */
export function carryOverConfig(defs: readonly MediatorConfigDef[], defaults: ConfigValues, existing: ConfigValues): ConfigValues {
  const config = structuredClone(defaults);
  for (const def of defs) {
    if (!Object.hasOwn(existing, def.param)) continue;
    const value = existing[def.param];
    if (valueProblems(def, value, def.param).length === 0) config[def.param] = structuredClone(value);
  }
  return config;
}
