/**
 * The built entry point is the production bundle (scripts/bundle-service.ts), stack traces in the service's log
 * name the TypeScript sources, not positions in the bundle, and the bundle answers with the route schemas compiled at
 * build time (scripts/compile-schemas.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/junction.js';
import { loopbackServiceEnv, runService } from '../helpers/process.js';

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

  it('answers with the route code compiled at build time: every route part found, none stale, bad input still a 400 naming it', async () => {
    const dir = await tempDir('junction-bundle-');
    dirs.push(dir);
    const password = 'bundle-admin-password-1';
    const env = await loopbackServiceEnv(dir, password);
    const service = runService([], env);
    try {
      await service.ready;
      const api = `http://127.0.0.1:${env.JUNCTION_API_PORT}`;
      const headers = { authorization: `Basic ${Buffer.from(`root@junction.local:${password}`).toString('base64')}`, 'content-type': 'application/json' };
      const get = async (path: string) => {
        const res = await fetch(`${api}${path}`, { headers });
        return { status: res.status, body: (await res.json()) as unknown };
      };
      expect((await get('/me')).status).toBe(200);
      expect(await get('/transactions?filterLimit=20&filterPage=0')).toEqual({ status: 200, body: [] });
      expect((await get('/channels')).status).toBe(200);
      const refused = await get('/transactions?filterLimit=twenty');
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('filterLimit');
      const badChannel = await fetch(`${api}/channels`, { method: 'POST', headers, body: JSON.stringify({ name: 7 }) });
      expect(badChannel.status).toBe(400);
      expect(await badChannel.text()).toContain('name');
    } finally {
      service.child.kill('SIGINT');
      await service.exited;
    }
    // The build saw every route the service registers, and each schema hashed as it did at build time.
    const warned = service
      .stdout()
      .split('\n')
      .filter((line) => line.includes('compiled at build time'));
    expect(warned).toEqual([]);
    expect(readFileSync('dist/service/bundle/junction.js', 'utf8')).toContain('GET /transactions querystring');
    // Each route's code is a file of its own beside the bundle, read on first use.
    expect(readdirSync('dist/service/bundle/schemas').filter((f) => f.endsWith('.cjs')).length).toBeGreaterThan(100);
  });
});
