/**
 * The manual (`docs/`), served at `/docs` on the management port (issue 39), so a clinic's machine off the internet
 * still has it: each Markdown page rendered on the server (manual-render.ts) into a page in the console's look, with
 * its stylesheet as a file and no script at all; images beside the pages; `/openapi.json`, the management API's
 * OpenAPI document (generated at build time into `docs/integrator/openapi.json`).
 *
 * Readable without signing in: the manual is the same text as the public repository, nothing in it is secret, and the
 * people who need it most (a forgotten password, an OpenID provider that refuses, a client getting 401) are the ones
 * who cannot sign in. The sign-in page links to it.
 *
 * Which files may be served is decided in domain/operations/manual-paths.ts (only `.md` pages and images, by plain
 * names); the resolved file must also really lie inside the docs folder (no symbolic link out). Anything else gets
 * the same 404 page, listing the manual's pages. Answers carry an ETag and `no-cache`: a reader's browser asks again
 * each time and gets a 304 while the page is unchanged, and an upgrade's new manual shows at once.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { MANUAL_IMAGE_TYPES, MANUAL_PREFIX, manualFile } from '../domain/operations/manual-paths.js';
import type { ManualFile } from '../domain/operations/manual-paths.js';
import { NoQuery } from './schemas/common.js';
import { ManualRenderer } from './manual-render.js';
import { MANUAL_CSS } from './manual-style.js';

/**
 * Stricter than the console's: the pages run no script and carry no inline style, so nothing but the manual's own
 * stylesheet and images may load.
 */
export const MANUAL_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"].join('; ');

/** Where the generated OpenAPI document lies under the docs folder, and where it is served. */
export const OPENAPI_FILE = join('integrator', 'openapi.json');
export const OPENAPI_PATH = '/openapi.json';

/**
 * Finds the docs folder by walking up from this module, as the console's folder is found (console.ts): it runs from
 * service/api/ under the tests, from dist/service/ or its bundle once built, and from resources/app/ in the desktop
 * app, whose files list ships docs/ (electron-builder.yml). `errors.md` marks it: that page always exists.
 */
export function findDocsDir(start = dirname(fileURLToPath(import.meta.url))): string | null {
  let dir = start;
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'docs');
    if (existsSync(join(candidate, 'errors.md'))) return candidate;
    const parent = resolve(dir, '..');
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The frame every page of the manual shares: a bar with the way back to the contents and to the console. */
function pageHtml(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Junction manual</title>
<link rel="stylesheet" href="${MANUAL_PREFIX}/manual.css">
</head>
<body>
<header class="bar">
<a class="brand" href="${MANUAL_PREFIX}/">Junction manual</a>
<nav aria-label="Manual"><a href="${MANUAL_PREFIX}/">Contents</a><a href="/">Console</a></nav>
</header>
<main>
${body}
</main>
</body>
</html>
`;
}

interface Cached {
  mtimeMs: number;
  size: number;
  body: Buffer;
  etag: string;
}

function etagOf(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

const ManualParams = Type.Object({ '*': Type.String({ maxLength: 400 }) });

/** The manual's files as the routes read them: pages rendered once per change of their file, kept in memory. */
class Manual {
  readonly #renderer = new ManualRenderer();
  readonly #pages = new Map<string, Cached>();

  constructor(readonly dir: string) {}

  /** The file's real path, or null when it is missing or lies outside the docs folder (a link pointing out). */
  async #inside(file: string): Promise<string | null> {
    try {
      const [root, real] = await Promise.all([realpath(this.dir), realpath(join(this.dir, ...file.split('/')))]);
      return real.startsWith(root + sep) ? real : null;
    } catch {
      return null;
    }
  }

  /** A page rendered, or an image's bytes; null when the manual has no such file. */
  async read(wanted: ManualFile): Promise<Cached | null> {
    const path = await this.#inside(wanted.file);
    if (path === null) return null;
    const info = await stat(path);
    if (!info.isFile()) return null;
    const cached = this.#pages.get(path);
    if (cached !== undefined && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached;
    const raw = await readFile(path);
    let body = raw;
    if (wanted.kind === 'page') {
      const page = this.#renderer.render(wanted.file, raw.toString('utf8'));
      body = Buffer.from(pageHtml(page.title, `<article>\n${page.html}</article>`));
    }
    const entry = { mtimeMs: info.mtimeMs, size: info.size, body, etag: etagOf(body) };
    // Images are not kept: the browser caches them, and they are the large files.
    if (wanted.kind === 'page') this.#pages.set(path, entry);
    return entry;
  }

  /** Every page of the manual, as paths under the docs folder, for the not-found page. */
  async pages(): Promise<string[]> {
    const entries = await readdir(this.dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && e.name.endsWith('.md'))
      .map((e) => relative(this.dir, join(e.parentPath, e.name)).split(sep).join('/'))
      .filter((file) => manualFile(file) !== null)
      .sort();
  }
}

function manualHeaders(reply: FastifyReply, type: string, etag: string): FastifyReply {
  return reply
    .type(type)
    .header('content-security-policy', MANUAL_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
    .header('etag', etag);
}

/** Answers with `body`, or 304 when the browser's copy is current. */
async function send(request: FastifyRequest, reply: FastifyReply, type: string, body: Buffer | string, etag = etagOf(body)): Promise<FastifyReply> {
  manualHeaders(reply, type, etag);
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.code(200).send(body);
}

/** The 404 page: what was asked for, and every page there is, so a reader with an old link still gets somewhere. */
async function notFound(manual: Manual, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const pages = await manual.pages().catch((): string[] => []);
  const list = pages.map((file) => `<li><a href="${MANUAL_PREFIX}/${file === 'index.md' ? '' : encodeURI(file)}">${escapeHtml(file)}</a></li>`).join('\n');
  const asked = request.url.split('?')[0] as string;
  const body = `<article>
<h1>Page not found</h1>
<p>The manual has no page at <code>${escapeHtml(asked)}</code>. It may have moved: the manual's pages are listed below, and its <a href="${MANUAL_PREFIX}/">contents</a> are ordered by reader.</p>
<h2>All pages</h2>
<ul class="pages">
${list}
</ul>
</article>`;
  const html = pageHtml('Page not found', body);
  manualHeaders(reply, 'text/html; charset=utf-8', etagOf(html));
  return reply.code(404).send(html);
}

/** Registers `/docs`, `/docs/*`, the stylesheet and `/openapi.json`, all readable without signing in. */
export async function registerManual(app: FastifyInstance, dir: string): Promise<void> {
  const manual = new Manual(dir);
  const config = { public: true };

  const serve = async (request: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> => {
    const wanted = manualFile(path);
    const found = wanted === null ? null : await manual.read(wanted);
    if (wanted === null || found === null) return notFound(manual, request, reply);
    const type = wanted.kind === 'page' ? 'text/html; charset=utf-8' : (MANUAL_IMAGE_TYPES[wanted.file.slice(wanted.file.lastIndexOf('.')).toLowerCase()] as string);
    return send(request, reply, type, found.body, found.etag);
  };

  app.get(MANUAL_PREFIX, { config, schema: { querystring: NoQuery } }, async (request, reply) => serve(request, reply, ''));
  app.get(`${MANUAL_PREFIX}/*`, { config, schema: { querystring: NoQuery, params: ManualParams } }, async (request, reply) =>
    serve(request, reply, (request.params as { '*': string })['*']),
  );
  const cssTag = etagOf(MANUAL_CSS);
  app.get(`${MANUAL_PREFIX}/manual.css`, { config, schema: { querystring: NoQuery } }, async (request, reply) => send(request, reply, 'text/css; charset=utf-8', MANUAL_CSS, cssTag));
  app.get(OPENAPI_PATH, { config, schema: { querystring: NoQuery } }, async (request, reply) => {
    const text = await readFile(join(dir, OPENAPI_FILE)).catch(() => null);
    if (text === null) return notFound(manual, request, reply);
    return send(request, reply, 'application/json; charset=utf-8', text);
  });
}
