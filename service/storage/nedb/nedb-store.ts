/** The embedded store: one NeDB datafile per configuration collection in the data folder. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { buildCollections, collectionSpecs } from '../collection-specs.js';
import { StoreError, StoreOpenError, storeOf } from '../store.js';
import type { CollectionSpec, Store, StoreHealth, StoreState } from '../store.js';
import { NedbCollection } from './collection.js';
import type { CollectionContext } from './collection.js';
import { describeError } from './errors.js';
import { loadDatastore } from './load-datastore.js';
import type { NedbDatastore } from './load-datastore.js';
import { writeCollections } from './snapshot.js';
import type { StoreSnapshotter } from '../snapshots.js';

export interface NedbStoreOptions {
  /** Folder holding `<collection>.db`; created (mode 0700) when missing. */
  dataDir: string;
  logger: Logger;
  /** How often every datafile is compacted; default one hour. */
  compactionIntervalMs?: number;
}

const DEFAULT_COMPACTION_INTERVAL_MS = 3_600_000;

/** Creates the NeDB store; nothing touches the disk until `open()`. */
export function createNedbStore(options: NedbStoreOptions): Store & StoreSnapshotter {
  const files = new NedbStore(options);
  return { ...storeOf(buildCollections((spec) => new NedbCollection(spec, files)), files), snapshot: (dir) => files.snapshot(dir) };
}

/** The datafiles' life: loading, compaction, the problems found, and the context every collection writes through. */
class NedbStore implements Pick<Store, 'open' | 'close' | 'health'>, StoreSnapshotter, CollectionContext {
  private readonly specs: readonly CollectionSpec[] = Object.values(collectionSpecs);
  private readonly dataDir: string;
  private readonly logger: Logger;
  private readonly compactionIntervalMs: number;
  private state: StoreState = 'closed';
  private datastores: Map<string, NedbDatastore> | null = null;
  /** Per collection: why memory and datafile may disagree. Only a successful compaction (a full rewrite) clears it. */
  private readonly problems = new Map<string, string>();
  private opening: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private compacting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: NedbStoreOptions) {
    this.dataDir = options.dataDir;
    this.logger = options.logger;
    this.compactionIntervalMs = options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
  }

  async open(): Promise<void> {
    if (this.closing !== null) await this.closing;
    if (this.state === 'ready') return;
    this.opening ??= this.load().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  async close(): Promise<void> {
    this.closing ??= this.shutDown().finally(() => {
      this.closing = null;
    });
    return this.closing;
  }

  health(): StoreHealth {
    return {
      engine: 'nedb',
      state: this.state,
      problems: [...this.problems].map(([collection, message]) => ({ collection, message })),
    };
  }

  datastore(collection: string): NedbDatastore {
    const datastore = this.closing === null ? this.datastores?.get(collection) : undefined;
    if (datastore === undefined) {
      const why = this.closing !== null ? 'closing' : this.state === 'failed' ? 'failed to open' : 'not open';
      throw new StoreError(`${collection}: the store is ${why}`);
    }
    return datastore;
  }

  /** Writes a copy of every collection, all as of one moment, into `dir` (see snapshot.ts). */
  async snapshot(dir: string): Promise<string[]> {
    if (this.state !== 'ready' || this.datastores === null || this.closing !== null) throw new StoreError('the store is not open');
    return writeCollections(this.datastores, dir);
  }

  writeFailed(collection: string, err: unknown): void {
    const file = this.fileOf(collection);
    this.logger.error({ collection, file, err }, 'NeDB could not append a change to its datafile; the next compaction will retry');
    this.problems.set(collection, `a write to ${file} failed (${describeError(err)}); it will be saved by the next successful compaction`);
  }

  private async load(): Promise<void> {
    this.state = 'opening';
    this.problems.clear();
    try {
      await this.createDataDir();
      const datastores = new Map<string, NedbDatastore>();
      for (const spec of this.specs) datastores.set(spec.name, await loadDatastore(spec, this.fileOf(spec.name)));
      this.datastores = datastores;
    } catch (err) {
      this.state = 'failed';
      if (err instanceof StoreOpenError) this.problems.set(err.collection, err.message);
      throw err;
    }
    this.state = 'ready';
    this.timer = setInterval(() => void this.compactAll(), this.compactionIntervalMs);
    // A pending compaction must not keep the process alive (nor the test runner).
    this.timer.unref();
  }

  private async createDataDir(): Promise<void> {
    try {
      await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new StoreOpenError('*', this.dataDir, `Cannot create the data folder ${this.dataDir}: ${describeError(err)}. ` +
        'Check the path and that the Junction service account may create it.', { cause: err });
    }
  }

  private async shutDown(): Promise<void> {
    if (this.opening !== null) await this.opening.catch(() => undefined);
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.datastores !== null) {
      // NeDB queues compaction behind pending writes, so this also waits for them.
      if (this.compacting !== null) await this.compacting;
      await this.compactAll();
    }
    this.datastores = null;
    this.state = 'closed';
  }

  /** Compacts every datafile in turn; never rejects (failures are logged and kept in problems). */
  private compactAll(): Promise<void> {
    const datastores = this.datastores;
    if (datastores === null) return Promise.resolve();
    this.compacting ??= (async () => {
      for (const [collection, datastore] of datastores) await this.compact(collection, datastore);
    })().finally(() => {
      this.compacting = null;
    });
    return this.compacting;
  }

  private async compact(collection: string, datastore: NedbDatastore): Promise<void> {
    const file = this.fileOf(collection);
    try {
      await datastore.compactDatafileAsync();
      if (this.problems.delete(collection)) this.logger.info({ collection, file }, 'NeDB datafile compacted again; the earlier problem is resolved');
    } catch (err) {
      this.logger.error({ collection, file, err }, 'NeDB datafile compaction failed; the data is safe in memory and the previous file is intact');
      this.problems.set(collection, `compaction of ${file} failed: ${describeError(err)}`);
    }
  }

  private fileOf(collection: string): string {
    return join(this.dataDir, `${collection}.db`);
  }
}
