/** The configuration reference (docs/operations/configuration.md), generated from the schema so docs cannot drift from code. */
import { typeLabel } from './describe.js';
import { envNameFor } from './env.js';
import { configLeaves } from './leaves.js';
import type { JsonSchema } from './leaves.js';

export interface ConfigReferenceRow {
  key: string;
  type: string;
  default: string;
  env: string;
  description: string;
}

function describeKey(schema: JsonSchema): string {
  const description = schema.description ?? '';
  return schema.unavailable === undefined ? description : `${description} Not available yet: ${schema.unavailable}; only the default is accepted.`;
}

/** One row per leaf key: type, default (as JSON), environment variable(s) and description. */
export function configReference(): ConfigReferenceRow[] {
  return configLeaves().map(({ key, schema, secret }) => {
    const env = envNameFor(key);
    return {
      key,
      type: typeLabel(schema),
      default: schema.defaultText ?? (schema.default === undefined ? '(none)' : JSON.stringify(schema.default)),
      env: secret ? `${env} or ${env}_FILE` : env,
      description: describeKey(schema),
    };
  });
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function code(text: string): string {
  return `\`${text}\``;
}

/** The reference as a markdown table: Key | Default | Environment variable | Description. */
export function configReferenceMarkdown(): string {
  const lines = ['| Key | Default | Environment variable | Description |', '|---|---|---|---|'];
  const rows = configReference();
  configLeaves().forEach(({ key, schema, secret }, i) => {
    const row = rows[i] as ConfigReferenceRow;
    const env = envNameFor(key);
    // defaultText is already markdown (it quotes paths itself); JSON defaults are shown as code.
    const defaultCell = schema.defaultText ?? (schema.default === undefined ? row.default : code(row.default));
    const envCell = secret ? `${code(env)} or ${code(`${env}_FILE`)}` : code(env);
    const cells = [code(key), defaultCell, envCell, `${row.description} *${row.type}*`];
    lines.push(`| ${cells.map(cell).join(' | ')} |`);
  });
  return `${lines.join('\n')}\n`;
}
