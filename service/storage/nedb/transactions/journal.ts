/**
 * `inflight.db`: the ids of transactions stored as Processing and not yet completed. After a crash, the ids left
 * here are exactly the transactions to fail, so start-up never scans partitions.
 */
import { join } from 'node:path';
import { isUniqueViolation, wrapError } from '../errors.js';
import { loadDatastore } from '../load-datastore.js';
import type { NedbDatastore } from '../load-datastore.js';

const NAME = 'transaction journal';
// Every transaction appends two lines (add, remove); compacting now and then keeps a long-running file small.
const COMPACT_EVERY = 10_000;

export class Journal {
  private removals = 0;

  private constructor(
    private readonly datastore: NedbDatastore,
    private readonly ids: Set<string>,
    private leftover: string[],
  ) {}

  /** Loads `<dir>/inflight.db`; what it holds at this point was left by the previous run. */
  static async open(dir: string): Promise<Journal> {
    const datastore = await loadDatastore({ name: NAME, unique: [], indexed: [] }, join(dir, 'inflight.db'));
    const ids = ((await datastore.find({})) as { _id: string }[]).map((doc) => doc._id);
    return new Journal(datastore, new Set(ids), ids);
  }

  /** The ids journaled by the previous run; each is returned once. */
  takeLeftover(): string[] {
    const ids = this.leftover;
    this.leftover = [];
    return ids;
  }

  async add(id: string): Promise<void> {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    try {
      await this.datastore.insert({ _id: id });
    } catch (err) {
      if (!isUniqueViolation(err)) throw wrapError(NAME, 'insert', err);
    }
  }

  async remove(ids: readonly string[]): Promise<void> {
    const present = ids.filter((id) => this.ids.delete(id));
    if (present.length === 0) return;
    try {
      await this.datastore.remove({ _id: { $in: present } }, { multi: true });
    } catch (err) {
      throw wrapError(NAME, 'remove', err);
    }
    this.removals += present.length;
    if (this.removals >= COMPACT_EVERY) {
      this.removals = 0;
      await this.datastore.compactDatafileAsync();
    }
  }

  /** Compacts the file. */
  async close(): Promise<void> {
    await this.datastore.compactDatafileAsync();
  }
}
