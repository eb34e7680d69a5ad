/**
 * The transaction log on NeDB: one datafile per UTC day (`<dir>/<yyyy-mm-dd>.db`), a bounded LRU of loaded days,
 * a day index (`index.db`) read at start-up instead of the partitions, and an in-flight journal (`inflight.db`) so
 * crash recovery touches only the days of interrupted transactions. See ARCHITECTURE.md "Storage".
 */
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { StoreError, StoreOpenError } from '../store.js';
import type { Changes } from '../store.js';
import type { PageOptions, TransactionFilter, TransactionLog, TransactionRecord } from '../transactions.js';
import { toNedbUpdate } from './changes.js';
import { copyOut } from './documents.js';
import { describeError } from './errors.js';
import { DayIndex } from './transactions/day-index.js';
import { checkSetFields, toStoredTransaction, writeError } from './transactions/documents.js';
import { dayOfId } from './transactions/ids.js';
import { Journal } from './transactions/journal.js';
import { dropDaysBefore, failInterrupted } from './transactions/maintenance.js';
import { PartitionCache } from './transactions/partitions.js';
import type { Opened } from './transactions/maintenance.js';
import { COLLECTION } from './transactions/query.js';
import { PartitionReader } from './transactions/reads.js';

export { newTransactionId } from './transactions/ids.js';

export interface NedbTransactionLogOptions {
  /** Folder of the partitions, index and journal; created (mode 0700) when missing. */
  dir: string;
  logger: Logger;
  /** How many day partitions may be in memory at once; default 8. */
  maxOpenPartitions?: number;
}

export interface NedbTransactionLog extends TransactionLog {
  /** Reads the day index and the journal only; partitions load when a query needs them. */
  open(): Promise<void>;
  /** Finishes pending writes, compacts and releases every file. Safe to call twice. */
  close(): Promise<void>;
  /** How many day partitions are in memory now (for tests and health). */
  openPartitions(): number;
}

/** Creates the NeDB transaction log; nothing touches the disk until `open()`. */
export function createNedbTransactionLog(options: NedbTransactionLogOptions): NedbTransactionLog {
  const max = options.maxOpenPartitions ?? 8;
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError('maxOpenPartitions must be a whole number of 1 or more');
  return new NedbLog(options.dir, options.logger, max);
}

class NedbLog implements NedbTransactionLog {
  private state: Opened | null = null;
  private opening: Promise<void> | null = null;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
    private readonly max: number,
  ) {}

  open(): Promise<void> {
    this.opening ??= this.load().catch((err: unknown) => {
      this.opening = null;
      throw err;
    });
    return this.opening;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.opening?.catch(() => undefined);
      const state = this.state;
      if (state === null) return;
      try {
        await state.partitions.close();
        await state.index.close();
        await state.journal.close();
      } finally {
        // Closed even when a final compaction failed: every write was already appended to its file.
        this.state = null;
        this.opening = null;
      }
    })();
    return this.closing;
  }

  openPartitions(): number {
    return this.state?.partitions.size() ?? 0;
  }

  async insert(doc: TransactionRecord): Promise<TransactionRecord> {
    const { index, journal, partitions } = this.ready();
    const { stored, day } = toStoredTransaction(doc);
    // Index and journal first: a crash in between leaves a harmless extra entry, never a transaction they miss.
    await index.record(day, stored.channelID);
    const processing = stored.status === 'Processing';
    if (processing) await journal.add(stored._id);
    try {
      return copyOut<TransactionRecord>(await partitions.use(day, (ds) => ds.insert(stored), true));
    } catch (err) {
      if (processing) await journal.remove([stored._id]).catch(() => undefined);
      throw err instanceof StoreError ? err : writeError('insert', err);
    }
  }

  async update(id: string, changes: Changes<TransactionRecord>): Promise<TransactionRecord | null> {
    const { index, journal, partitions } = this.ready();
    const update = toNedbUpdate(COLLECTION, changes);
    const day = this.dayOf(id);
    if (day === null) return null;
    checkSetFields(update.$set, day);
    if (typeof update.$set.channelID === 'string') await index.record(day, update.$set.channelID);
    let updated: unknown;
    try {
      updated = await partitions.use(day, (ds) => ds.update({ _id: id }, update, { multi: false, returnUpdatedDocs: true }), true);
    } catch (err) {
      throw err instanceof StoreError ? err : writeError('update', err);
    }
    if (updated === null || updated === undefined) return null;
    const status = update.$set.status;
    if (status === 'Processing') await journal.add(id);
    else if (status !== undefined) await journal.remove([id]);
    return copyOut<TransactionRecord>(updated);
  }

  async get(id: string): Promise<TransactionRecord | null> {
    const day = this.dayOf(id);
    if (day === null) return null;
    const doc = await this.reader().read(day, 'get', (ds) => ds.findOne({ _id: id }));
    return doc === null ? null : copyOut<TransactionRecord>(doc);
  }

  async remove(id: string): Promise<boolean> {
    const { journal, partitions } = this.ready();
    const day = this.dayOf(id);
    if (day === null) return false;
    let removed: number;
    try {
      removed = await partitions.use(day, (ds) => ds.remove({ _id: id }, { multi: false }), true);
    } catch (err) {
      throw err instanceof StoreError ? err : writeError('remove', err);
    }
    await journal.remove([id]);
    return removed > 0;
  }

  page(filter: TransactionFilter, options: PageOptions): Promise<TransactionRecord[]> {
    return this.reader().page(filter, options);
  }

  count(filter: TransactionFilter): Promise<number> {
    return this.reader().count(filter);
  }

  async *stream(filter: TransactionFilter): AsyncGenerator<TransactionRecord> {
    yield* this.reader().stream(filter);
  }

  failInterrupted(): Promise<number> {
    return failInterrupted(this.ready(), this.logger);
  }

  async hasChannel(channelID: string): Promise<boolean> {
    const { index } = this.ready();
    const days = index.days();
    if (days.some((day) => index.channels(day)?.has(channelID) === true)) return true;
    // Days not yet indexed are learned by loading them once.
    for (const day of days.filter((d) => index.channels(d) === null)) {
      await this.reader().read(day, 'hasChannel', () => Promise.resolve());
      if (index.channels(day)?.has(channelID) === true) return true;
    }
    return false;
  }

  async days(): Promise<string[]> {
    return Promise.resolve(this.ready().index.days());
  }

  dropDaysBefore(day: string): Promise<string[]> {
    return dropDaysBefore(this.ready(), day, this.logger);
  }

  private async load(): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new StoreOpenError(COLLECTION, this.dir, `Cannot create the transactions folder ${this.dir}: ${describeError(err)}.`, { cause: err });
    }
    const index = await DayIndex.open(this.dir);
    const journal = await Journal.open(this.dir);
    this.closing = null;
    this.state = { index, journal, partitions: new PartitionCache(this.dir, this.max, this.logger) };
  }

  private ready(): Opened {
    if (this.state === null || this.closing !== null) throw new StoreError(`${COLLECTION}: the transaction log is not open`);
    return this.state;
  }

  /** The partition day of an id, or null for a malformed id or a day with no partition (nothing is loaded). */
  private dayOf(id: string): string | null {
    const day = dayOfId(id);
    return day !== null && this.ready().index.has(day) ? day : null;
  }

  private reader(): PartitionReader {
    const { index, partitions } = this.ready();
    return new PartitionReader(index, partitions);
  }
}
