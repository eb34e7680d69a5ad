/**
 * Issue 39: the manual stays whole. Every relative link and `#anchor` in README.md and docs/ resolves (anchors
 * against the target page's headings, slugged as GitHub does, duplicates included), and the README stays a short
 * front page that opens with the two commands.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** README.md and every Markdown page under docs/, as paths from the repository's root. */
function manualPages(): string[] {
  const pages = ['README.md'];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return pages;
}

/** The page's lines outside fenced code blocks, inline code spans blanked (links and headings are not read there). */
function proseLines(text: string): { line: string; number: number }[] {
  const lines: { line: string; number: number }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((line, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) lines.push({ line: line.replace(/(`+)[\s\S]*?\1/g, ''), number: index + 1 });
  });
  return lines;
}

/** The anchors GitHub gives the page's headings: text as rendered, slugged, repeats suffixed -1, -2, ... */
function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === null ? marker : null;
      continue;
    }
    const heading = fence === null ? /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1] : undefined;
    if (heading === undefined) continue;
    const rendered = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/\*\*?|__/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    anchors.add(slugger.slug(rendered));
  }
  return anchors;
}

interface Link {
  page: string;
  line: number;
  target: string;
}

/** Every inline link and image of the page whose target is not an absolute URL. */
function relativeLinks(page: string, text: string): Link[] {
  const links: Link[] = [];
  for (const { line, number } of proseLines(text)) {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      links.push({ page, line: number, target });
    }
  }
  return links;
}

/** Why the link does not resolve, or null when it does. */
function brokenBecause(link: Link, texts: Map<string, string>): string | null {
  const [pathPart = '', anchor] = link.target.split('#', 2) as [string, string | undefined];
  const file = pathPart === '' ? link.page : relative(ROOT, join(ROOT, dirname(link.page), decodeURI(pathPart)));
  const full = join(ROOT, file);
  if (file.startsWith('..') || !existsSync(full)) return `${file} does not exist`;
  if (anchor === undefined || anchor === '') return null;
  if (statSync(full).isDirectory() || !file.endsWith('.md')) return `#${anchor} points into ${file}, which is not a Markdown page`;
  const text = texts.get(file) ?? readFileSync(full, 'utf8');
  return anchorsOf(text).has(decodeURIComponent(anchor)) ? null : `${file} has no heading #${anchor}`;
}

describe('the manual (README.md and docs/)', () => {
  const pages = manualPages();
  const texts = new Map(pages.map((page) => [page, readFileSync(join(ROOT, page), 'utf8')]));

  it('slugs headings as GitHub does, repeats included', () => {
    expect([...anchorsOf('# Junction\n## First login\n## `api.openid` settings\n## TCP, TLS and MLLP channels\n## Alerts\n### Alerts\n```\n## not a heading\n```\n')]).toEqual([
      'junction',
      'first-login',
      'apiopenid-settings',
      'tcp-tls-and-mllp-channels',
      'alerts',
      'alerts-1',
    ]);
  });

  it('finds links outside code only', () => {
    const links = relativeLinks('docs/x.md', 'See [a](a.md#b), ![shot](images/s.png) and [web](https://example.org).\n`[no](c.md)`\n```\n[no](d.md)\n```\n');
    expect(links.map((link) => link.target)).toEqual(['a.md#b', 'images/s.png']);
  });

  it('has every relative link and anchor resolve', () => {
    const broken = pages
      .flatMap((page) => relativeLinks(page, texts.get(page) ?? ''))
      .map((link) => ({ link, why: brokenBecause(link, texts) }))
      .filter(({ why }) => why !== null)
      .map(({ link, why }) => `${link.page}:${link.line} (${link.target}): ${why}`);
    expect(broken).toEqual([]);
  });
});

describe('README.md', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('starts with the two commands, before anything else', () => {
    expect(readme.startsWith('# Junction\n\n```sh\nELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci && npm start\nELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci && npm test\n```\n')).toBe(true);
  });

  it('is a front page of at most 150 lines that leads into docs/', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(150);
    expect(readme).toContain('](docs/index.md)');
    expect(readme).toContain('](docs/images/dashboard.png)');
  });
});
