/** docs/errors.md is where callers read the error codes: it must list exactly the catalogue, with its statuses. */
import { readFileSync } from 'node:fs';
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

  it('is linked from the README and from the pages of what answers with the codes', () => {
    expect(readFileSync('README.md', 'utf8')).toContain('](docs/errors.md)');
    for (const page of ['docs/integrator/api.md', 'docs/integrator/transaction-ports.md', 'docs/admin/clients.md', 'docs/admin/channels.md']) {
      expect(readFileSync(page, 'utf8'), page).toContain('](../errors.md)');
    }
  });
});
