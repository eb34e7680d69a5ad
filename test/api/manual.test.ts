/**
 * The manual served at /docs (issue 39): pages rendered from a docs folder the test writes, links pointed at /docs,
 * GitHub's heading anchors, raw HTML escaped, images, caching, the strict CSP, and nothing outside the folder
 * reachable however the path is written. One service for the whole file.
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANUAL_CSP, findDocsDir } from '../../service/api/manual.js';
import { manualFile, manualLink } from '../../service/domain/operations/manual-paths.js';
import { startJunction, tempDir } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { rawRequest } from './raw-http.js';

// The smallest valid PNG (one transparent pixel).
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf00000301010018dd8db00000000049454e44ae426082', 'hex');

let t: TestJunction;
let outside: string;

beforeAll(async () => {
  outside = await tempDir('junction-manual-outside-');
  await writeFile(join(outside, 'secret.md'), '# Secret\n\nnot part of the manual');
  const docs = join(outside, 'docs');
  await mkdir(join(docs, 'admin'), { recursive: true });
  await mkdir(join(docs, 'images'), { recursive: true });
  await mkdir(join(docs, 'integrator'), { recursive: true });
  await writeFile(join(docs, 'errors.md'), '# Errors\n\n## NOT_FOUND\n\nNothing there.\n');
  await writeFile(join(docs, 'index.md'), '# Junction manual\n\n- [Channels](admin/channels.md)\n- [A missing section](admin/channels.md#routes--checks)\n');
  await writeFile(
    join(docs, 'admin', 'channels.md'),
    [
      '# Channels',
      '',
      '<!-- an editor\'s note -->',
      '',
      'See [the error](../errors.md#not_found), [this section](#routes--checks), [the README](../../README.md) and [a vendor](https://example.org/x).',
      '',
      '![The dashboard](../images/shot.png)',
      '',
      '## Routes & checks',
      '',
      '<script>alert(1)</script> <img src=x onerror=alert(2)> [bad](javascript:alert(3))',
      '',
      '## Routes & checks',
      '',
      '```sh',
      'npm ci && npm start',
      '```',
      '',
    ].join('\n'),
  );
  await writeFile(join(docs, 'images', 'shot.png'), PNG);
  await writeFile(join(docs, 'integrator', 'openapi.json'), '{"openapi":"3.0.3"}');
  await writeFile(join(docs, 'notes.txt'), 'not a page');
  await symlink(join(outside, 'secret.md'), join(docs, 'linked.md'));
  t = await startJunction({}, { consoleDir: null, docsDir: docs });
});

afterAll(async () => {
  await t?.destroy();
  await rm(outside, { recursive: true, force: true });
});

describe('which files and links the manual serves (domain/operations/manual-paths.ts)', () => {
  it('takes only .md pages and images, by plain names', () => {
    expect(manualFile('')).toEqual({ file: 'index.md', kind: 'page' });
    expect(manualFile('admin/channels.md')).toEqual({ file: 'admin/channels.md', kind: 'page' });
    expect(manualFile('images/Shot.PNG')).toEqual({ file: 'images/Shot.PNG', kind: 'image' });
    for (const bad of ['../README.md', 'admin/../../x.md', '.hidden.md', 'a//b.md', 'a\\b.md', 'x.svg', 'x.txt', 'admin/', '/etc/passwd.md', 'a\0.md']) expect(manualFile(bad), bad).toBeNull();
  });

  it('points relative links at /docs, keeps anchors, and names a file outside docs/', () => {
    expect(manualLink('admin/channels.md', 'clients.md#basic-auth')).toEqual({ kind: 'manual', href: '/docs/admin/clients.md#basic-auth' });
    expect(manualLink('admin/channels.md', '../index.md')).toEqual({ kind: 'manual', href: '/docs/' });
    expect(manualLink('index.md', 'images/a b.png')).toEqual({ kind: 'manual', href: '/docs/images/a%20b.png' });
    expect(manualLink('admin/channels.md', '../../README.md#first-login')).toEqual({ kind: 'outside', path: 'README.md' });
    for (const keep of ['#here', 'https://example.org/', 'mailto:a@b.c', '//cdn.example/x']) expect(manualLink('index.md', keep)).toEqual({ kind: 'keep' });
  });

  it('finds the repository docs folder from the service sources', () => {
    expect(findDocsDir()).toMatch(/[/\\]docs$/);
  });
});

describe('GET /docs', () => {
  it('serves the front page without signing in, under a CSP that allows no script and no inline style', async () => {
    const res = await t.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(MANUAL_CSP);
    expect(MANUAL_CSP).toContain("default-src 'none'");
    expect(MANUAL_CSP).not.toContain('unsafe-inline');
    expect(res.text).toContain('<title>Junction manual · Junction manual</title>');
    expect(res.text).toContain('<a href="/docs/admin/channels.md">Channels</a>');
    expect(res.text).toContain('href="/docs/admin/channels.md#routes--checks"');
    expect(res.text).toContain('<link rel="stylesheet" href="/docs/manual.css">');
    expect(res.text).not.toMatch(/<script|style=/);
    expect((await t.request('/docs/')).text).toBe(res.text);
  });

  it('rewrites relative .md links to /docs paths, gives headings GitHub ids, escapes raw HTML', async () => {
    const res = await t.request('/docs/admin/channels.md');
    expect(res.status).toBe(200);
    const html = res.text;
    expect(html).toContain('<a href="/docs/errors.md#not_found">the error</a>');
    expect(html).toContain('<a href="#routes--checks">this section</a>');
    expect(html).toContain('<a href="https://example.org/x">a vendor</a>');
    expect(html).toContain('<span class="outside" title="README.md in Junction\'s source">the README</span>');
    expect(html).toContain('<img src="/docs/images/shot.png" alt="The dashboard">');
    expect(html).toContain('<h2 id="routes--checks">Routes &amp; checks</h2>');
    expect(html).toContain('<h2 id="routes--checks-1">Routes &amp; checks</h2>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<script|<img src=x|href="javascript:/);
    expect(html).not.toContain("editor's note");
    expect(html).toContain('<pre tabindex="0"><code class="language-sh">npm ci &amp;&amp; npm start');
  });

  it('answers 304 while a page is unchanged, and serves its images and stylesheet', async () => {
    const page = await t.request('/docs/errors.md');
    const etag = page.headers.get('etag') ?? '';
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect((await t.request('/docs/errors.md', { headers: { 'if-none-match': etag } })).status).toBe(304);
    const image = await t.inject('/docs/images/shot.png');
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    const css = await t.request('/docs/manual.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const openapi = await t.request('/openapi.json');
    expect(openapi.body).toEqual({ openapi: '3.0.3' });
  });

  it('answers an unknown page with 404 and a page listing the manual', async () => {
    const res = await t.request('/docs/admin/chanels.md');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(MANUAL_CSP);
    expect(res.text).toContain('The manual has no page at <code>/docs/admin/chanels.md</code>');
    expect(res.text).toContain('<a href="/docs/admin/channels.md">admin/channels.md</a>');
  });

  it('serves nothing outside the docs folder, however the path is written', async () => {
    const tries = ['/docs/../package.json', '/docs/%2e%2e/%2e%2e/secret.md', '/docs/..%2fsecret.md', '/docs/admin/..%2F..%2Fsecret.md', '/docs/%2Fetc%2Fpasswd', '/docs/notes.txt', '/docs/linked.md', '/docs/..\\secret.md', '/docs/.%2e/secret.md'];
    for (const path of tries) {
      // Sent as written: fetch and inject would tidy the dots away before the service saw them.
      const res = await rawRequest(t, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect([400, 404], path).toContain(res.status);
      expect(res.text, path).not.toContain('not part of the manual');
    }
  });
});
