/** Runs only the README's dashboard picture (`npm run docs:screenshot`), with the console tests' browser and setup. */
import { defineConfig } from '@playwright/test';
import base from '../../playwright.config.js';

export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: 'docs-screenshot.shot.ts',
  outputDir: '../../test-results/docs-screenshot',
  globalSetup: './global-setup.ts',
  workers: 1,
  use: { ...base.use, viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, colorScheme: 'light' },
});
