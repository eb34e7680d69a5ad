/** Environment overrides: one `JUNCTION_*` variable per leaf key, parsed by the key's schema type. */
import { readFileSync } from 'node:fs';
import { allowedText } from './describe.js';
import { configLeaves } from './leaves.js';
import type { JsonSchema, Leaf } from './leaves.js';
import { didYouMean } from './suggest.js';

const PREFIX = 'JUNCTION_';
/** Read by loadConfig, not a key, so it must not be reported as unknown. */
export const CONFIG_FILE_VAR = 'JUNCTION_CONFIG';

/** The environment variable of a dotted key: `api.port` -> `JUNCTION_API_PORT`. */
export function envNameFor(keyPath: string): string {
  const snake = keyPath.split('.').map((segment) =>
    segment
      // An acronym followed by a word (`JWTAuthentication`) splits before the word's capital.
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toUpperCase(),
  );
  return PREFIX + snake.join('_');
}

/** Where an override came from, for messages that tell the operator what to change. */
export interface EnvSource {
  /** The variable that supplied the value (the `_FILE` one for secrets read from a file). */
  name: string;
  /** `NAME="value"`, or for secrets a form that does not reveal the value. */
  display: string;
  /** True when `display` quotes the value itself. */
  showsValue: boolean;
}

export interface EnvOverrides {
  values: Map<string, unknown>;
  sources: Map<string, EnvSource>;
  problems: string[];
  warnings: string[];
}

type Parsed = { ok: true; value: unknown } | { ok: false; allowed: string };

const TRUE = new Set(['true', '1', 'yes']);
const FALSE = new Set(['false', '0', 'no']);

function parseValue(raw: string, schema: JsonSchema): Parsed {
  const text = raw.trim();
  switch (schema.type) {
    case 'boolean': {
      const lower = text.toLowerCase();
      if (TRUE.has(lower)) return { ok: true, value: true };
      if (FALSE.has(lower)) return { ok: true, value: false };
      return { ok: false, allowed: 'true or false (1/0 and yes/no also work)' };
    }
    case 'integer':
      // Number() alone would accept '', '0x1F', '1e3' and ' 12 ', none of which an operator means as a port.
      return /^-?\d+$/.test(text) ? { ok: true, value: Number(text) } : { ok: false, allowed: allowedText(schema) };
    case 'array': {
      if (text.startsWith('[')) {
        try {
          const value: unknown = JSON.parse(text);
          if (Array.isArray(value)) return { ok: true, value };
        } catch {
          // fall through to the problem below
        }
        return { ok: false, allowed: `a JSON array or a comma-separated list: ${allowedText(schema)}` };
      }
      return { ok: true, value: text.split(',').map((s) => s.trim()).filter((s) => s !== '') };
    }
    default:
      // Strings are taken verbatim: whitespace may be meaningful in a secret.
      return { ok: true, value: raw };
  }
}

/** Empty variables count as unset: compose files and launchers often pass `X=` for "not configured". */
function present(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function readSecretFile(path: string): { ok: true; value: string } | { ok: false; reason: string } {
  try {
    // Files written by `echo` or editors end in a newline that is not part of the secret.
    return { ok: true, value: readFileSync(path, 'utf8').replace(/[\r\n]+$/, '') };
  } catch (err) {
    return { ok: false, reason: fsReason(err) };
  }
}

/** A short reason for a failed file read. */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'the file does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder, not a file';
  return err instanceof Error ? err.message : String(err);
}

function readLeaf(leaf: Leaf, env: Record<string, string | undefined>, out: EnvOverrides): void {
  const name = envNameFor(leaf.key);
  const raw = env[name];
  const fileName = `${name}_FILE`;
  const file = leaf.secret ? env[fileName] : undefined;
  if (present(raw) && present(file)) {
    out.problems.push(`${name} and ${fileName} are both set (${leaf.key}): set only one of them`);
    return;
  }
  if (present(file)) {
    const read = readSecretFile(file);
    if (!read.ok) {
      out.problems.push(`${fileName}=${JSON.stringify(file)} (${leaf.key}): cannot read the file: ${read.reason}`);
      return;
    }
    out.values.set(leaf.key, read.value);
    out.sources.set(leaf.key, { name: fileName, display: `${fileName}=${JSON.stringify(file)}`, showsValue: false });
    return;
  }
  if (!present(raw)) return;
  const display = leaf.secret ? name : `${name}=${JSON.stringify(raw)}`;
  const parsed = parseValue(raw, leaf.schema);
  if (!parsed.ok) {
    out.problems.push(`${display} (${leaf.key}): must be ${parsed.allowed}`);
    return;
  }
  out.values.set(leaf.key, parsed.value);
  out.sources.set(leaf.key, { name, display, showsValue: !leaf.secret });
}

/** Every recognised variable name: leaf names, `_FILE` variants of secrets, and JUNCTION_CONFIG. */
export function knownEnvNames(): Set<string> {
  const names = new Set([CONFIG_FILE_VAR]);
  for (const leaf of configLeaves()) {
    names.add(envNameFor(leaf.key));
    if (leaf.secret) names.add(`${envNameFor(leaf.key)}_FILE`);
  }
  return names;
}

/** Parses every `JUNCTION_*` override; unknown ones become warnings, since other tools may share the prefix. */
export function readEnvironment(env: Record<string, string | undefined>): EnvOverrides {
  const out: EnvOverrides = { values: new Map(), sources: new Map(), problems: [], warnings: [] };
  for (const leaf of configLeaves()) readLeaf(leaf, env, out);
  const known = knownEnvNames();
  for (const name of Object.keys(env).sort()) {
    if (known.has(name) || !name.toUpperCase().startsWith(PREFIX)) continue;
    out.warnings.push(`${name} is not a Junction setting and is ignored${didYouMean(name, known)}`);
  }
  return out;
}
