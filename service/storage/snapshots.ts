/**
 * Backups need a consistent copy of what each engine keeps, written as the files the engine opens at start. An
 * engine offers this beside its `Store`; only `app.ts` (which knows the engine) hands it to the backup.
 */

/** A store engine that can write a consistent copy of its configuration collections into a folder. */
export interface StoreSnapshotter {
  /**
   * Writes every collection as the file the engine would open from the data folder, all as of one moment, into
   * `dir`; resolves with the file names written (relative to `dir`).
   */
  snapshot(dir: string): Promise<string[]>;
}
