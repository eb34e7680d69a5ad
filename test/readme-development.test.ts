/** The README's Development section says what each build, test and CI file at the top of the repository is for. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync('README.md', 'utf8');
const development = readme.slice(readme.indexOf('\n## Development'));

/** The first cells of the `| File | What |` table. */
function documentedFiles(): string[] {
  const table = development.slice(development.indexOf('| File | What |'));
  const rows = table.slice(0, table.search(/\n\n|$/)).split('\n').slice(2);
  return rows.map((row) => /^\| `([^`]+)` \|/.exec(row)?.[1] ?? row);
}

describe('README Development files', () => {
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
