/**
 * The built admin console (renderer/dist), served at `/` on the management port: same origin as the API and the
 * `/ws` live feed, so the session cookie covers all three and the console works in the shell and in any browser.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { NoQuery } from './schemas/common.js';

/** Only the console's own files, styles inline (the component library injects them) and same-origin API calls. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * Finds renderer/dist by walking up from this module: it runs from service/ under the tests and from dist/service/
 * once built, and inside the installer's app archive both sit under the same root.
 */
export function findConsoleDir(start = dirname(fileURLToPath(import.meta.url))): string | null {
  let dir = start;
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'renderer', 'dist');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = resolve(dir, '..');
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/**
 * Browsers ask for /favicon.ico on their own, without the session cookie. Behind authentication that request was an
 * anonymous failed login in the audit log each time a page opened (issue 35), so where there is no icon to serve (no
 * console built, or one built without it) the request gets an empty answer instead of a 401.
 */
export function registerNoIcon(app: FastifyInstance): void {
  app.get('/favicon.ico', { config: { public: true }, schema: { querystring: NoQuery } }, async (_request, reply) => {
    await reply.code(204).header('cache-control', 'public, max-age=86400').send();
  });
}

/**
 * Registers one route per built file (no wildcard, so unknown paths still get the API's JSON 404) and `/` for
 * index.html. The console routes inside the page with a hash (`/#/transactions`), which never collides with an
 * API path such as `/channels`.
 */
export async function registerConsole(app: FastifyInstance, dir: string): Promise<void> {
  await app.register(async (scope) => {
    // The console's files are public: signing in happens inside them.
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    // The built console has its icon (renderer/public/favicon.ico), served below like its other files.
    if (!existsSync(join(dir, 'favicon.ico'))) registerNoIcon(scope);
    await scope.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      wildcard: false,
      index: 'index.html',
      // Hashed asset names never change content; index.html must always be fetched fresh to pick up a new build.
      cacheControl: false,
      setHeaders(reply, path) {
        void reply.header('content-security-policy', CONSOLE_CSP);
        void reply.header('x-frame-options', 'DENY');
        void reply.header('referrer-policy', 'no-referrer');
        void reply.header('cache-control', path.startsWith(join(dir, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  });
}
