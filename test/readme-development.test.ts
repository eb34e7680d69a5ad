/** The manual's Development page says what each build, test and CI file at the top of the repository is for. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The page the README's Development section moved to (issue 39).
const development = readFileSync('docs/development.md', 'utf8');

/** The first cells of the `| File | What |` table. */
function documentedFiles(): string[] {
  const table = development.slice(development.indexOf('| File | What |'));
  const rows = table.slice(0, table.search(/\n\n|$/)).split('\n').slice(2);
  return rows.map((row) => /^\| `([^`]+)` \|/.exec(row)?.[1] ?? row);
}

describe('docs/development.md: the files at the top', () => {
  const files = documentedFiles();

  it('names only files that exist', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(existsSync(file), file).toBe(true);
  });

  it('names every tool configuration at the top, the console’s tsconfig and the CI entry point', () => {
    const tools = readdirSync('.', { withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(json|ts|js|yml)$/.test(entry.name) && !/^package(-lock)?\.json$/.test(entry.name))
      .map((entry) => entry.name);
    expect(tools).toContain('tsconfig.build.json');
    expect(tools).toContain('vite.config.ts');
    expect([...files].sort()).toEqual([...tools, 'renderer/tsconfig.json', '.ci/run'].sort());
  });
});
