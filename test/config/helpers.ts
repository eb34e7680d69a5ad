/** Shared helpers for the config tests. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { ConfigError } from '../../service/config/index.js';

/** A temp folder removed after the test file; returns a function writing files into it. */
export function tempFiles(): { dir: string; write: (name: string, content: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'junction-config-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    write: (name, content) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
  };
}

/** Runs `fn`, expects a ConfigError and returns it. */
export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError, but nothing was thrown');
}
