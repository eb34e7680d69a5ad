/**
 * The loaded day partitions, bounded by an LRU. NeDB keeps a whole datafile in memory, so only `max` days may be
 * loaded at once. A partition is pinned while an operation runs on it and is never evicted while pinned; eviction
 * compacts a partition that was written to (NeDB queues that behind its pending writes) before dropping it.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { StoreError } from '../../store.js';
import type { CollectionSpec } from '../../store.js';
import { describeError } from '../errors.js';
import { loadDatastore } from '../load-datastore.js';
import type { NedbDatastore } from '../load-datastore.js';
import { COLLECTION } from './query.js';

const spec: CollectionSpec = { name: COLLECTION, unique: [], indexed: ['request.timestamp', 'channelID', 'status'] };

interface Partition {
  day: string;
  loading: Promise<NedbDatastore>;
  pins: number;
  dirty: boolean;
}

export class PartitionCache {
  /** Map order is recency: least recently used first. */
  private readonly loaded = new Map<string, Partition>();
  /** Days being compacted out of memory or deleted; they still count against the bound. */
  private readonly leaving = new Map<string, Promise<void>>();
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly max: number,
    private readonly logger: Logger,
  ) {}

  /** The datafile of a day. */
  fileOf(day: string): string {
    return join(this.dir, `${day}.db`);
  }

  /** How many partitions are in memory. */
  size(): number {
    return this.loaded.size + this.leaving.size;
  }

  /** Runs `fn` on the day's datastore, loading it first (evicting the least recently used) when needed. */
  async use<T>(day: string, fn: (datastore: NedbDatastore) => Promise<T>, write = false): Promise<T> {
    const partition = await this.pin(day);
    try {
      const datastore = await partition.loading;
      if (write) partition.dirty = true;
      return await fn(datastore);
    } finally {
      partition.pins -= 1;
      this.wake();
    }
  }

  /** Removes a day from memory (after its running operations) and deletes its datafile. */
  async drop(day: string): Promise<void> {
    for (;;) {
      const leaving = this.leaving.get(day);
      const partition = this.loaded.get(day);
      if (leaving !== undefined) await leaving;
      else if (partition !== undefined && partition.pins > 0) await this.changed();
      else break;
    }
    const partition = this.loaded.get(day);
    this.loaded.delete(day);
    const file = this.fileOf(day);
    await this.leave(day, async () => {
      await partition?.loading.catch(() => undefined);
      await rm(file, { force: true });
      // A compaction interrupted by a crash leaves its new copy here; NeDB would load it next time.
      await rm(`${file}~`, { force: true });
    });
  }

  /** Waits for running operations, compacts written partitions and refuses further use. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    while ([...this.loaded.values()].some((p) => p.pins > 0)) await this.changed();
    await Promise.all([...this.loaded.values()].map((p) => this.evict(p)));
    await Promise.all(this.leaving.values());
  }

  private async pin(day: string): Promise<Partition> {
    for (;;) {
      if (this.closed) throw new StoreError(`${COLLECTION}: the transaction log is closed`);
      const leaving = this.leaving.get(day);
      const existing = this.loaded.get(day);
      if (leaving !== undefined) {
        await leaving;
      } else if (existing !== undefined) {
        existing.pins += 1;
        this.loaded.delete(day);
        this.loaded.set(day, existing);
        return existing;
      } else if (this.size() < this.max) {
        return this.load(day);
      } else {
        const victim = [...this.loaded.values()].find((p) => p.pins === 0);
        await (victim === undefined ? this.changed() : this.evict(victim));
      }
    }
  }

  private load(day: string): Partition {
    const file = this.fileOf(day);
    const started = Date.now();
    const partition: Partition = { day, loading: loadDatastore(spec, file), pins: 1, dirty: false };
    this.loaded.set(day, partition);
    partition.loading.then(
      () => this.logger.debug({ day, file, ms: Date.now() - started }, 'transaction partition loaded'),
      (err: unknown) => {
        // Forgotten, so that the next query retries: a file restored from backup works without a restart.
        if (this.loaded.get(day) === partition) this.loaded.delete(day);
        this.logger.error({ day, file, err }, 'transaction partition cannot be loaded; queries that need this day fail');
        this.wake();
      },
    );
    return partition;
  }

  private evict(partition: Partition): Promise<void> {
    this.loaded.delete(partition.day);
    return this.leave(partition.day, async () => {
      const datastore = await partition.loading.catch(() => null);
      if (datastore === null || !partition.dirty) return;
      const file = this.fileOf(partition.day);
      try {
        await datastore.compactDatafileAsync();
      } catch (err) {
        // Every write was already appended to the file; only the tidy rewrite failed, so dropping loses nothing.
        this.logger.error({ file, err }, `transaction partition compaction failed: ${describeError(err)}`);
      }
    });
  }

  private leave(day: string, work: () => Promise<void>): Promise<void> {
    const done = work().finally(() => {
      this.leaving.delete(day);
      this.wake();
    });
    this.leaving.set(day, done);
    return done;
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
