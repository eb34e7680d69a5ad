/** Merging defaults, file and environment into one validated, frozen configuration. */
import { homedir } from 'node:os';
import { crossFieldProblems } from './checks.js';
import { absoluteDataDir, defaultDataDir } from './data-dir.js';
import { readEnvironment } from './env.js';
import { ConfigError } from './errors.js';
import { isPlainObject } from '../domain/util/plain-object.js';
import { configLeaves, define, getPath, schemaDefaults, setPath } from './leaves.js';
import type { JunctionConfig } from './schema.js';
import { schemaProblems } from './validate.js';
import type { Locate } from './validate.js';

export interface ResolveInput {
  /** The parsed JSON file, if any. */
  file?: unknown;
  /** Named in messages about values from the file. */
  fileName?: string;
  env: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  homeDir?: string;
}

/** Objects merge key by key; anything else (arrays included) replaces the lower layer. */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = Object.hasOwn(out, key) ? out[key] : undefined;
    define(out, key, isPlainObject(below) && isPlainObject(value) ? merge(below, value) : value);
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Pure: merge defaults < file values < environment, then validate. Throws ConfigError. */
export function resolveConfig(input: ResolveInput): { config: JunctionConfig; warnings: string[] } {
  const platform = input.platform ?? process.platform;
  const where = input.fileName ?? 'the configuration file';
  const problems: string[] = [];

  const dataDir = defaultDataDir({ platform, homeDir: input.homeDir ?? homedir(), env: input.env });
  const defaults = { dataDir, ...schemaDefaults() };

  let file: Record<string, unknown> = {};
  if (isPlainObject(input.file)) file = input.file;
  else if (input.file !== undefined) problems.push(`${where}: must hold a JSON object of settings, such as {"api": {"port": 8080}}`);

  const merged = merge(defaults, file);
  const env = readEnvironment(input.env);
  problems.push(...env.problems);
  for (const [key, value] of env.values) setPath(merged, key, value);

  const locate: Locate = (key) => {
    const source = env.sources.get(key);
    if (source !== undefined) return { where: `${source.display} (${key})`, showsValue: source.showsValue };
    return { where: getPath(file, key) !== undefined ? `${key} (in ${where})` : key, showsValue: false };
  };
  problems.push(...schemaProblems(merged, locate), ...crossFieldProblems(merged));
  if (problems.length > 0) throw new ConfigError(problems);

  // A copy, so freezing never reaches into objects the caller passed in as `file`.
  const config = structuredClone(merged) as JunctionConfig;
  config.dataDir = absoluteDataDir(config.dataDir, platform, process.cwd());
  // Every key is present, so consumers can rely on `in` and Object.keys; unset secrets stay undefined.
  for (const leaf of configLeaves()) if (getPath(config, leaf.key) === undefined) setPath(config, leaf.key, undefined);
  return { config: deepFreeze(config), warnings: env.warnings };
}
