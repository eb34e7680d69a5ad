import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Memory tests collect garbage before sampling, so they measure live memory rather than GC timing.
    execArgv: ['--expose-gc'],
  },
});
