import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The console's pure modules are tested beside them, type-checked with the console (renderer/tsconfig.json).
    include: ['test/**/*.test.ts', 'renderer/src/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Memory tests collect garbage before sampling, so they measure live memory rather than GC timing.
    execArgv: ['--expose-gc'],
  },
});
