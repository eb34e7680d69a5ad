/**
 * Backups need a consistent copy of what each engine keeps, written as the files the engine opens at start. An
 * engine that can take one offers it as its storage's `backup` (engine.ts); the backup knows only this interface.
 */

/** Something that can write a consistent copy of what it keeps into a folder. */
export interface StorageSnapshotter {
  /**
   * Writes everything as the files the engine would open from the data folder, consistent with each other, into
   * `dir`; resolves with the file names written (relative to `dir`), in the order they were copied.
   */
  snapshot(dir: string): Promise<string[]>;
}

/** A configuration store that can copy its collections, all as of one moment. */
export type StoreSnapshotter = StorageSnapshotter;
