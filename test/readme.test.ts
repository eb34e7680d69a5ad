import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync('README.md', 'utf8');

describe('README', () => {
  it('opens with the two fresh-machine commands, and CI runs the second', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1]?.trim().split('\n') ?? [];
    expect(firstBlock).toHaveLength(2);
    expect(firstBlock[0]).toMatch(/npm ci && npm start$/);
    expect(firstBlock[1]).toMatch(/npm ci && npm test$/);
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
    expect(readFileSync('.ci/run', 'utf8')).toContain(firstBlock[1]);
  });
});
