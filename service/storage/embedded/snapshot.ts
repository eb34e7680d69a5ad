/**
 * A consistent copy of the embedded engine's stores for a backup (backup/backups.ts): the NeDB collections all as of
 * one moment, then each SQLite file by `VACUUM INTO` on its own thread, transactions before bodies so every stored
 * transaction's bodies are in the copy.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageSnapshotter } from '../snapshots.js';
import { snapshotSqlite } from '../sqlite/snapshot.js';
import { EMBEDDED_FILES } from './layout.js';

/** SQLite files copied first, in this order, so every transaction in the copy finds its bodies in the later copy. */
const SQLITE_FIRST: readonly string[] = [EMBEDDED_FILES.transactions, EMBEDDED_FILES.smallBodies];

/** Copies `store`'s collections and every SQLite file of `dataDir`. */
export function embeddedSnapshot(dataDir: string, store: StorageSnapshotter): StorageSnapshotter {
  return {
    snapshot: async (dir) => {
      const written = await store.snapshot(dir);
      for (const file of await sqliteFiles(dataDir)) {
        await snapshotSqlite(join(dataDir, file), join(dir, file));
        written.push(file);
      }
      return written;
    },
  };
}

/** The SQLite files of the data folder, those of SQLITE_FIRST first. */
async function sqliteFiles(dataDir: string): Promise<string[]> {
  const found = (await readdir(dataDir)).filter((name) => name.endsWith('.sqlite')).sort();
  return [...SQLITE_FIRST.filter((name) => found.includes(name)), ...found.filter((name) => !SQLITE_FIRST.includes(name))];
}
