/** Start-up entry: find the config file (argv or JUNCTION_CONFIG), read and parse it, then resolve. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CONFIG_FILE_VAR, fsReason } from './env.js';
import { ConfigError } from './errors.js';
import { jsonErrorLocation } from './json-location.js';
import { resolveConfig } from './resolve.js';
import type { JunctionConfig } from './schema.js';

const FLAG = '--config';

/** The config file path and what named it: `--config <path>` / `--config=<path>` (last wins), else JUNCTION_CONFIG. */
export function configFileArgument(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): { path: string; from: string } | undefined {
  let found: { path: string; from: string } | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    let path: string | undefined;
    if (arg === FLAG) {
      path = argv[i + 1];
      i++;
      if (path === undefined || path.startsWith('--')) throw new ConfigError([`${FLAG} needs a file path, e.g. ${FLAG} /etc/junction.json`]);
    } else if (arg.startsWith(`${FLAG}=`)) path = arg.slice(FLAG.length + 1);
    else continue;
    if (path === '') throw new ConfigError([`${FLAG} needs a file path, e.g. ${FLAG}=/etc/junction.json`]);
    found = { path, from: FLAG };
  }
  if (found !== undefined) return found;
  const fromEnv = env[CONFIG_FILE_VAR];
  return fromEnv !== undefined && fromEnv !== '' ? { path: fromEnv, from: CONFIG_FILE_VAR } : undefined;
}

function parseJson(text: string, fileName: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    // V8's message ends with a position or a copy of the text; the line and column say it better.
    const reason = (err as Error).message.replace(/ in JSON at position \d+.*$/s, '').replace(/, (?:\.\.\.)?".*$/s, '');
    const at = jsonErrorLocation(text);
    const where = at === undefined ? '' : ` at line ${at.line}, column ${at.column}`;
    throw new ConfigError([`${fileName} is not valid JSON${where}: ${reason}`]);
  }
}

/** Reads the config file named by argv or JUNCTION_CONFIG (if any), then resolves it with the environment. */
export function loadConfig(input: { argv: readonly string[]; env: Record<string, string | undefined> }): {
  config: JunctionConfig;
  warnings: string[];
  configFile?: string;
} {
  const chosen = configFileArgument(input.argv, input.env);
  if (chosen === undefined) return resolveConfig({ env: input.env });
  const configFile = resolve(chosen.path);
  let text: string;
  try {
    text = readFileSync(configFile, 'utf8');
  } catch (err) {
    throw new ConfigError([`cannot read the configuration file ${configFile} (from ${chosen.from}): ${fsReason(err)}`]);
  }
  // Windows editors often save UTF-8 with a byte-order mark, which JSON.parse rejects.
  const file = parseJson(text.replace(/^\uFEFF/, ''), configFile);
  return { ...resolveConfig({ file, fileName: configFile, env: input.env }), configFile };
}
