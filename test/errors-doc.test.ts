/** docs/errors.md is where callers read the error codes: it must list exactly the catalogue, with its statuses. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCatalogue } from '../service/errors.js';

const doc = readFileSync('docs/errors.md', 'utf8');

/** The table rows of the page: `| \`CODE\` | status | where | when |`. */
function documented(): { code: string; status: number; where: string; when: string }[] {
  return [...doc.matchAll(/^\| `([A-Z0-9_]+)` \| (\d{3}) \| ([^|]*) \| (.*) \|$/gm)].map(([, code, status, where, when]) => ({
    code: code as string,
    status: Number(status),
    where: (where as string).trim(),
    when: (when as string).trim(),
  }));
}

/**
 * Pages the error-link check leaves alone: this page itself, the benchmark log, the references generated from the
 * route and configuration schemas, and the search pages written with issue 37.
 */
const NOT_HAND_WRITTEN_HERE = new Set(['errors.md', 'BENCHMARKS.md', 'integrator/api-reference.md', 'operations/configuration.md', 'support/search.md', 'operations/search-index.md']);

describe('docs/errors.md', () => {
  const rows = documented();

  it('documents every catalogue code with its status, and no other code', () => {
    const catalogue = Object.fromEntries(Object.entries(errorCatalogue).map(([code, { status }]) => [code, status]));
    expect(Object.fromEntries(rows.map((row) => [row.code, row.status]))).toEqual(catalogue);
  });

  it('documents each code once, saying where and when it happens', () => {
    expect(new Set(rows.map((row) => row.code)).size).toBe(rows.length);
    for (const row of rows) {
      expect(row.where, row.code).not.toBe('');
      expect(row.when.length, row.code).toBeGreaterThan(20);
    }
  });

  it('is linked from the README, and from every page of the manual that names one of its codes', () => {
    expect(readFileSync('README.md', 'utf8')).toContain('](docs/errors.md)');
    const codes = Object.keys(errorCatalogue);
    const pages = readdirSync('docs', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md') && !NOT_HAND_WRITTEN_HERE.has(file));
    const naming = pages.filter((file) => codes.some((code) => new RegExp(`\\b${code}\\b`).test(readFileSync(join('docs', file), 'utf8'))));
    expect(naming.length).toBeGreaterThan(5);
    for (const file of naming) {
      const link = relative(dirname(join('docs', file)), 'docs/errors.md');
      expect(readFileSync(join('docs', file), 'utf8'), `docs/${file} names error codes`).toContain(`](${link})`);
    }
  });
});
