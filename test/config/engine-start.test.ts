/**
 * `storage.engine: postgres` with a database that cannot be reached: start fails with a message naming the server,
 * and nothing of the embedded engine (its files or a keystore) is written into the data folder meanwhile.
 */
import { readdir, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startJunction, tempDir } from '../helpers/junction.js';
import { freePort } from '../helpers/process.js';

describe('storage.engine postgres at start', () => {
  it('fails naming the unreachable server, before the keystore or any embedded store is written', async () => {
    const dataDir = await tempDir('junction-engine-');
    const port = await freePort();
    try {
      const started = startJunction({ storage: { engine: 'postgres', postgres: { url: `postgres://junction@127.0.0.1:${port}/junction` } } }, { dataDir });
      await expect(started).rejects.toThrow(`127.0.0.1:${port}`);
      const left = await readdir(dataDir);
      expect(left.filter((f) => f.startsWith('keystore') || f.endsWith('.sqlite') || f.endsWith('.db'))).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
