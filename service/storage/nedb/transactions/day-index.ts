/**
 * `index.db`: one small document per day `{ _id: day, channels }`, cached in memory. Start-up reads only this (not
 * the partitions), and channel filters skip days that cannot match without loading them.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from '../../store.js';
import { describeError, wrapError } from '../errors.js';
import { loadDatastore } from '../load-datastore.js';
import type { NedbDatastore } from '../load-datastore.js';
import { isDay } from './ids.js';

const NAME = 'transaction index';

export class DayIndex {
  /** null: a partition file with no index entry (an index lost or older than the file); channels unknown until loaded. */
  private constructor(
    private readonly datastore: NedbDatastore,
    private readonly entries: Map<string, Set<string> | null>,
  ) {}

  /** Loads `<dir>/index.db` and lists the partition files, so a partition missing from the index is still found. */
  static async open(dir: string): Promise<DayIndex> {
    const datastore = await loadDatastore({ name: NAME, unique: [], indexed: [] }, join(dir, 'index.db'));
    const entries = new Map<string, Set<string> | null>();
    for (const doc of (await datastore.find({})) as { _id: string; channels?: unknown }[]) {
      if (!isDay(doc._id)) continue;
      const channels = Array.isArray(doc.channels) ? (doc.channels as unknown[]) : null;
      entries.set(doc._id, channels !== null && channels.every((c) => typeof c === 'string') ? new Set(channels) : null);
    }
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      throw new StoreError(`${NAME}: cannot list ${dir}: ${describeError(err)}`, { cause: err });
    }
    for (const name of names) {
      const day = name.endsWith('.db') ? name.slice(0, -3) : '';
      if (isDay(day) && !entries.has(day)) entries.set(day, null);
    }
    return new DayIndex(datastore, entries);
  }

  /** Every day with a partition, oldest first. */
  days(): string[] {
    return [...this.entries.keys()].sort();
  }

  has(day: string): boolean {
    return this.entries.has(day);
  }

  /** The channels stored on a day; null when unknown until the partition is loaded. */
  channels(day: string): ReadonlySet<string> | null {
    return this.entries.get(day) ?? null;
  }

  /** False only when the index shows that the day holds none of `channels`. */
  mayHold(day: string, channels: ReadonlySet<string> | undefined): boolean {
    const known = this.entries.get(day);
    if (channels === undefined || known === null || known === undefined) return true;
    for (const channel of channels) if (known.has(channel)) return true;
    return false;
  }

  /** Records that a day holds a channel; writes only when the pair is new. Call before storing the transaction. */
  async record(day: string, channel: string): Promise<void> {
    const known = this.entries.get(day);
    if (known === null || known?.has(channel) === true) return;
    const channels = new Set(known ?? []).add(channel);
    this.entries.set(day, channels);
    await this.write(day, channels);
  }

  /** Fills in an unknown day from its loaded partition. */
  async learn(day: string, channels: Iterable<string>): Promise<void> {
    if (this.entries.get(day) !== null) return;
    const set = new Set(channels);
    this.entries.set(day, set);
    await this.write(day, set);
  }

  /** Removes a day's entry. */
  async forget(day: string): Promise<void> {
    this.entries.delete(day);
    try {
      await this.datastore.remove({ _id: day }, { multi: false });
    } catch (err) {
      throw wrapError(NAME, 'remove', err);
    }
  }

  /** Compacts the file. */
  async close(): Promise<void> {
    await this.datastore.compactDatafileAsync();
  }

  private async write(day: string, channels: ReadonlySet<string>): Promise<void> {
    try {
      // NeDB applies writes in call order and each call carries the whole set known then, so the last one wins correctly.
      await this.datastore.update({ _id: day }, { $set: { channels: [...channels] } }, { upsert: true });
    } catch (err) {
      throw wrapError(NAME, 'update', err);
    }
  }
}
