import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The console's pure modules are tested beside them, type-checked with the console (renderer/tsconfig.json).
    include: ['test/**/*.test.ts', 'renderer/src/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two files at once. Vitest's default (one fewer than the cores) is ONE on the 2-core CI machine, where
    // most test time is spent waiting on sockets, child processes and PostgreSQL, not computing: one worker left the
    // second core mostly idle. The tests run under a loaded machine without flaking, which two workers on two cores are.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Memory tests collect garbage before sampling, so they measure live memory rather than GC timing.
    execArgv: ['--expose-gc'],
  },
});
