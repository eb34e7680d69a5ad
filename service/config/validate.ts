/** Schema validation by ajv, with its errors turned into messages that name the key, the source and what is allowed. */
import { isDeepStrictEqual } from 'node:util';
import { _, Ajv, stringify } from 'ajv';
import type { Code, ErrorObject, Options, ValidateFunction } from 'ajv';
import { compiledConfigValidator } from './compiled-validator.js';
import { allowedText } from './describe.js';
import { configLeaves, getPath, schemaAt } from './leaves.js';
import { configSchema } from './schema.js';
import { didYouMean } from './suggest.js';
import { pointerToDotted as dotted } from '../domain/util/json-pointer.js';
import { schemaHash } from '../domain/util/schema-hash.js';

/**
 * Says where a key's value came from: `api.port (in junction.json)` or `JUNCTION_API_PORT="0" (api.port)`;
 * `showsValue` is true when that text already quotes the value.
 */
export type Locate = (key: string) => { where: string; showsValue: boolean };

// strict mode catches mistakes in the schema itself; the two annotations added below are ours (docs and secrets).
const options: Options = { allErrors: true, strict: true, coerceTypes: false, useDefaults: false };

/** The name under which the compiled validator records the settings it was made with (see domain/util/schema-hash.ts). */
export const CONFIG_COMPILER = `ajv config ${JSON.stringify(options)}`;

/**
 * The ajv instance the configuration schema compiles with. `isDeepStrictEqualSource` is set when generating code at
 * build time: it keeps the validator's source and says how that code reaches `isDeepStrictEqual`.
 */
export function configAjv(isDeepStrictEqualSource?: Code): Ajv {
  const ajv = new Ajv(isDeepStrictEqualSource === undefined ? options : { ...options, code: { source: true } });
  ajv.addVocabulary(['secret', 'defaultText']);
  // A key whose feature is not built yet holds its default or nothing (see `unavailable` in schema.ts). Generated code
  // (not an ajv `validate` function, which standalone code cannot hold), so it compiles at build time too.
  ajv.addKeyword({
    keyword: 'unavailable',
    schemaType: 'string',
    code(cxt) {
      const { gen, data, parentSchema } = cxt;
      const equal = gen.scopeValue('func', isDeepStrictEqualSource === undefined ? { ref: isDeepStrictEqual } : { ref: isDeepStrictEqual, code: isDeepStrictEqualSource });
      const fallback = (parentSchema as { default?: unknown }).default;
      cxt.fail(_`!${equal}(${data}, ${fallback === undefined ? _`undefined` : stringify(fallback)})`);
    },
  });
  return ajv;
}

let validator: ValidateFunction | undefined;

function compiled(): ValidateFunction {
  // The bundle's validator, unless the schema changed since the build (then it would be stale: compiled here instead).
  if (validator === undefined && compiledConfigValidator !== null && compiledConfigValidator[0] === schemaHash(CONFIG_COMPILER, configSchema)) {
    validator = compiledConfigValidator[1]();
  }
  validator ??= configAjv().compile(configSchema);
  return validator;
}

/** The leaf owning an error path: errors inside arrays (`api.authenticationTypes.1`) belong to the array key. */
function owningLeaf(key: string): string | undefined {
  return configLeaves().find((leaf) => key === leaf.key || key.startsWith(`${leaf.key}.`))?.key;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function describe(err: ErrorObject, merged: unknown, locate: Locate, secretKeys: Set<string>): { key: string; problem: string } {
  const at = dotted(err.instancePath);
  if (err.keyword === 'additionalProperties') {
    const name = String((err.params as { additionalProperty: unknown }).additionalProperty);
    const key = at === '' ? name : `${at}.${name}`;
    const siblings = Object.keys(schemaAt(at)?.properties ?? {}).map((s) => (at === '' ? s : `${at}.${s}`));
    return { key, problem: `${locate(key).where}: is not a known setting${didYouMean(key, siblings)}` };
  }
  if (err.keyword === 'required') {
    // Unreachable while every key has a default, but a future key without one must still get a clear message.
    const name = String((err.params as { missingProperty: unknown }).missingProperty);
    const key = at === '' ? name : `${at}.${name}`;
    return { key, problem: `${key}: is required` };
  }
  const leaf = owningLeaf(at);
  if (leaf !== undefined) {
    const schema = schemaAt(leaf) ?? {};
    const { where, showsValue } = locate(leaf);
    // Secrets are never echoed: error messages end up in logs and support tickets.
    const value = secretKeys.has(leaf) || showsValue ? '' : `, not ${shown(getPath(merged, leaf))}`;
    if (err.keyword === 'unavailable') {
      const problem = `${where}: is not available yet: ${schema.unavailable}; only the default ${shown(schema.default)} is accepted${value}`;
      return { key: leaf, problem };
    }
    return { key: leaf, problem: `${where}: must be ${allowedText(schema)}${value}` };
  }
  // Only a section can be left: something other than an object was given where a group of settings belongs.
  const what = at === '' ? 'the configuration' : at;
  return { key: at, problem: `${locate(what).where}: must be an object of settings, not ${shown(getPath(merged, at))}` };
}

/** Validates the merged configuration; one problem per offending key, in the validator's order. */
export function schemaProblems(merged: unknown, locate: Locate): string[] {
  const validate = compiled();
  if (validate(merged)) return [];
  const secretKeys = new Set(configLeaves().filter((l) => l.secret).map((l) => l.key));
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const err of validate.errors ?? []) {
    const { key, problem } = describe(err, merged, locate, secretKeys);
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}
