/**
 * The console's Help links (renderer/src/data/help.ts, issue 39): every page of the console has its own entry, and
 * every page and #anchor an entry names exists in the manual as /docs serves it (the heading ids the service gives,
 * GitHub's), so a renamed section breaks this test instead of a reader's link.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP, MANUAL_HOME, SIGN_IN_HELP, helpFor } from '../../renderer/src/data/help.js';
import { ManualRenderer } from '../../service/api/manual-render.js';

const renderer = new ManualRenderer();

/** The console's routes, read from each area's declaration (pages/<area>/area.tsx). */
function consolePaths(): string[] {
  const pages = join('renderer', 'src', 'pages');
  return readdirSync(pages)
    .filter((area) => existsSync(join(pages, area, 'area.tsx')))
    .flatMap((area) => [...readFileSync(join(pages, area, 'area.tsx'), 'utf8').matchAll(/path: '([^']+)'/g)].map((m) => `/${m[1] as string}`));
}

describe('Help links', () => {
  it('lead from each console page to its guide, a literal path before a parameter', () => {
    expect(helpFor('/channels/new')).toBe('/docs/admin/channels.md#what-a-channel-holds');
    expect(helpFor('/channels/6650f0a1b2c3d4e5f6a7b8c9')).toBe('/docs/admin/channels.md#what-a-channel-holds');
    expect(helpFor('/channels/6650f0a1b2c3d4e5f6a7b8c9/metrics')).toBe('/docs/admin/channels.md#channel-status-route-checks-and-test-messages');
    expect(helpFor('/')).toBe(MANUAL_HOME);
    expect(helpFor('/no/such/page')).toBe(MANUAL_HOME);
    const paths = consolePaths();
    expect(paths.length).toBeGreaterThan(15);
    for (const path of paths) expect(helpFor(path.replace(/:\w+/g, 'x1')), path).not.toBe(MANUAL_HOME);
  });

  it.each([...HELP.map((entry) => [entry.path, entry.doc] as const), ['sign-in page', SIGN_IN_HELP.replace('/docs/', '')] as const])('%s: %s exists in the manual', (_path, doc) => {
    const [file = '', anchor] = doc.split('#');
    const source = join('docs', file);
    expect(existsSync(source), `docs/${file} is missing`).toBe(true);
    if (anchor === undefined) return;
    const html = renderer.render(file, readFileSync(source, 'utf8')).html;
    expect(html, `docs/${file} has no heading with the id ${anchor}`).toContain(` id="${anchor}"`);
  });
});
