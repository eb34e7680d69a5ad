/**
 * The manual's generated pages (issue 39) are what the schemas make of them today: the configuration reference from
 * service/config/schema.ts, the OpenAPI document and the API reference from the route schemas. `npm run build`
 * regenerates them; a stale committed copy fails here, naming the command that rewrites it.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATE_COMMAND, generatedDocs } from '../../scripts/generate-docs.js';
import { configReference } from '../../service/config/index.js';
import type { OpenApiDocument } from '../../scripts/api-reference.js';

const generated = await generatedDocs();

describe('generated pages of the manual', () => {
  it.each(generated.map((g) => [g.path, g.text] as const))('%s is current', async (path, text) => {
    const committed = await readFile(path, 'utf8').catch(() => '(missing)');
    expect(committed === text, `${path} is stale: run \`${GENERATE_COMMAND}\` (or \`npm run build\`) and commit the result`).toBe(true);
  });

  it('the configuration reference lists every key of the schema', () => {
    const page = generated.find((g) => g.path.endsWith('configuration.md'))?.text ?? '';
    for (const { key } of configReference()) expect(page).toContain(`| \`${key}\` |`);
    expect(page).toContain('JUNCTION_CONFIG');
  });

  it('the OpenAPI document holds every route with its permission, and the reference groups them by resource', () => {
    const openapi = JSON.parse(generated.find((g) => g.path.endsWith('openapi.json'))?.text ?? '{}') as OpenApiDocument;
    const post = openapi.paths['/channels']?.post;
    expect(post?.['x-permission']).toBe('admin');
    expect(post?.requestBody).toBeDefined();
    expect(openapi.paths['/channels/{channelId}']?.get?.parameters?.map((p) => p.name)).toContain('channelId');
    expect(openapi.paths['/heartbeat']?.get?.['x-permission']).toBe('none (no sign-in)');
    const reference = generated.find((g) => g.path.endsWith('api-reference.md'))?.text ?? '';
    expect(reference).toContain('## channels\n');
    expect(reference).toContain('### POST /channels\n\nPermission: admin.');
    expect(reference).toMatch(/\| `urlPattern` \| string[^|]*\| yes \|/);
  });
});
