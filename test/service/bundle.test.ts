/**
 * The built entry point is the production bundle (scripts/bundle-service.ts), and stack traces in the service's log
 * name the TypeScript sources, not positions in the bundle.
 */
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/junction.js';
import { runService } from '../helpers/process.js';

describe('the service bundle', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('is what dist/service/index.js runs', () => {
    expect(readFileSync('dist/service/index.js', 'utf8')).toContain("await import('./bundle/junction.js')");
    // One file holds the service's own code and the packages it serves with.
    const bundle = readFileSync('dist/service/bundle/junction.js', 'utf8');
    expect(bundle).toContain('Junction is ready');
    expect(bundle).toMatch(/node_modules\/fastify\//);
  });

  it('logs a start-up failure with a stack that points at the .ts files', async () => {
    const dir = await tempDir('junction-bundle-');
    dirs.push(dir);
    // A data folder under a regular file cannot be created: the store's open fails inside Junction's own code.
    await writeFile(join(dir, 'a-file'), 'not a folder\n');
    const service = runService([], { JUNCTION_DATA_DIR: join(dir, 'a-file', 'data'), JUNCTION_LOGGING_FILE_ENABLED: 'false', JUNCTION_API_PORT: '1', JUNCTION_ROUTER_HTTP_PORT: '2', JUNCTION_ROUTER_HTTPS_PORT: '3' });
    const { code } = await service.exited;
    expect(code).toBe(1);
    const fatal = service
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; err?: { stack?: string } })
      .find((entry) => entry.level === 60);
    const stack = fatal?.err?.stack ?? '';
    expect(stack).toMatch(/\(.*service[/\\]app\.ts:\d+:\d+\)/);
    expect(stack).toMatch(/service[/\\]storage[/\\]nedb[/\\]nedb-store\.ts:\d+:\d+/);
    expect(stack).not.toContain('bundle/junction.js');
  });
});
