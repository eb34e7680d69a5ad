/**
 * Writes the manual's generated pages (issue 39): the configuration reference from the configuration schema, and the
 * management API's OpenAPI document with its reference page from the route schemas. Run by `npm run docs:generate`
 * and at the end of `npm run build:service`, from dist/ (tsc's output of these sources); test/docs/generated.test.ts
 * fails when a committed page differs from what this writes.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { configurationPage } from './configuration-page.js';
import { apiOpenApi, apiReferenceMarkdown } from './api-reference.js';

/** The generated files: their paths in the checkout and their contents. */
export async function generatedDocs(): Promise<{ path: string; text: string }[]> {
  const openapi = await apiOpenApi();
  return [
    { path: 'docs/operations/configuration.md', text: configurationPage() },
    // One line: indented it was three times the size (886 KB), and api-reference.md is the page people read and diff.
    { path: 'docs/integrator/openapi.json', text: `${JSON.stringify(openapi)}\n` },
    { path: 'docs/integrator/api-reference.md', text: apiReferenceMarkdown(openapi) },
  ];
}

/** The command that rewrites them, as the staleness test names it. */
export const GENERATE_COMMAND = 'npm run docs:generate';

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const root = resolve(import.meta.dirname, '..', '..');
  for (const { path, text } of await generatedDocs()) {
    const file = join(root, path);
    const before = await readFile(file, 'utf8').catch(() => null);
    if (before !== text) await writeFile(file, text);
    process.stdout.write(`${path}: ${before === text ? 'unchanged' : 'written'}\n`);
  }
}
