/** Schema validation by ajv, with its errors turned into messages that name the key, the source and what is allowed. */
import { isDeepStrictEqual } from 'node:util';
import { Ajv } from 'ajv';
import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv';
import { allowedText } from './describe.js';
import { configLeaves, getPath, schemaAt } from './leaves.js';
import { configSchema } from './schema.js';
import { didYouMean } from './suggest.js';
import { pointerToDotted as dotted } from '../domain/json-pointer.js';

/**
 * Says where a key's value came from: `api.port (in junction.json)` or `JUNCTION_API_PORT="0" (api.port)`;
 * `showsValue` is true when that text already quotes the value.
 */
export type Locate = (key: string) => { where: string; showsValue: boolean };

let validator: ValidateFunction | undefined;

function compiled(): ValidateFunction {
  if (validator === undefined) {
    // strict mode catches mistakes in the schema itself; the two annotations below are ours (docs and secrets).
    const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });
    ajv.addVocabulary(['secret', 'defaultText']);
    // A key whose feature is not built yet holds its default or nothing (see `unavailable` in schema.ts).
    ajv.addKeyword({
      keyword: 'unavailable',
      schemaType: 'string',
      validate: (_missing: string, value: unknown, parent?: AnySchemaObject) => isDeepStrictEqual(value, parent?.default),
    });
    validator = ajv.compile(configSchema);
  }
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
