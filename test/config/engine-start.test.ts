/** `storage.engine: postgres` is a valid setting, but until app.ts wires the PostgreSQL engines in, start refuses it. */
import { readdir, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startJunction, tempDir } from '../helpers/junction.js';

describe('storage.engine postgres at start', () => {
  it('is refused with a message saying what to do, before the keystore or any store is opened', async () => {
    const dataDir = await tempDir('junction-engine-');
    try {
      await expect(startJunction({ storage: { engine: 'postgres' } }, { dataDir })).rejects.toThrow(
        'storage.engine is postgres, but this build of Junction cannot run on PostgreSQL yet (issue 20); set storage.engine to embedded',
      );
      const left = await readdir(dataDir);
      expect(left.filter((f) => f.startsWith('keystore') || f.endsWith('.sqlite'))).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
