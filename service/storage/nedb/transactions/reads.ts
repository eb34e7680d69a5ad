/** The read side of the transaction log: walking day partitions newest-first for pages, counts and streams. */
import { StoreError } from '../../store.js';
import type { PageOptions, TransactionFilter, TransactionRecord } from '../../transactions.js';
import { copyOut } from '../documents.js';
import { wrapError } from '../errors.js';
import type { NedbQuery } from '../filter.js';
import { toCursorOptions } from '../find-options.js';
import type { NedbDatastore } from '../load-datastore.js';
import type { DayIndex } from './day-index.js';
import type { PartitionCache } from './partitions.js';
import { COLLECTION, NEWEST_FIRST, olderThan, toTransactionQuery } from './query.js';
import type { TransactionQuery } from './query.js';

// The stream holds one batch of a partition at a time, whatever the partition's size.
const STREAM_BATCH = 500;

export class PartitionReader {
  constructor(
    private readonly index: DayIndex,
    private readonly partitions: PartitionCache,
  ) {}

  /** A newest-first page, walking days backwards and stopping once it is full. */
  async page(filter: TransactionFilter, options: PageOptions): Promise<TransactionRecord[]> {
    const query = toTransactionQuery(filter);
    const { skip = 0, limit } = toCursorOptions(COLLECTION, { skip: options.skip, limit: options.limit });
    if (limit === undefined) throw new StoreError(`${COLLECTION}: a page needs a limit`);
    const page: TransactionRecord[] = [];
    let toSkip = skip;
    for (const day of this.daysFor(query)) {
      if (page.length >= limit) break;
      await this.read(day, 'page', async (ds) => {
        // Counting is cheaper than sorting, so whole partitions inside the skip are passed over by their count.
        if (toSkip > 0) {
          const count = await ds.count(query.query);
          if (count <= toSkip) {
            toSkip -= count;
            return;
          }
        }
        const docs = await ds.find(query.query).sort(NEWEST_FIRST).skip(toSkip).limit(limit - page.length);
        toSkip = 0;
        for (const doc of docs) page.push(copyOut<TransactionRecord>(doc));
      });
    }
    return page;
  }

  /** The number of matches, summed over the days that may hold them. */
  async count(filter: TransactionFilter): Promise<number> {
    const query = toTransactionQuery(filter);
    let total = 0;
    for (const day of this.daysFor(query)) total += await this.read(day, 'count', (ds) => ds.count(query.query));
    return total;
  }

  /** Every match newest first, one keyset batch of one partition at a time. */
  async *stream(filter: TransactionFilter): AsyncGenerator<TransactionRecord> {
    const query = toTransactionQuery(filter);
    for (const day of this.daysFor(query)) {
      let last: { timestamp: Date; id: string } | null = null;
      for (;;) {
        const where: NedbQuery = last === null ? query.query : olderThan(query.query, last);
        // Copied inside the partition's pin; only this batch is held while the consumer works.
        const batch: TransactionRecord[] = await this.read(day, 'stream', async (ds) =>
          (await ds.find(where).sort(NEWEST_FIRST).limit(STREAM_BATCH)).map((doc) => copyOut<TransactionRecord>(doc)),
        );
        for (const doc of batch) yield doc;
        const tail = batch.at(-1);
        if (batch.length < STREAM_BATCH || tail === undefined) break;
        last = { timestamp: tail.request.timestamp, id: tail._id };
      }
    }
  }

  /** The days a query must visit, newest first. */
  daysFor(query: TransactionQuery): string[] {
    const index = this.index;
    const { fromDay, toDay, channels } = query;
    return index
      .days()
      .filter((d) => (fromDay === undefined || d >= fromDay) && (toDay === undefined || d <= toDay) && index.mayHold(d, channels))
      .reverse();
  }

  /** Runs a read on a day's partition, learning the day's channels first when the index does not know them. */
  async read<T>(day: string, action: string, fn: (ds: NedbDatastore) => Promise<T>): Promise<T> {
    const { index, partitions } = this;
    try {
      return await partitions.use(day, async (ds) => {
        if (index.channels(day) === null) await index.learn(day, await channelsIn(ds));
        return fn(ds);
      });
    } catch (err) {
      throw wrapError(COLLECTION, action, err);
    }
  }
}

async function channelsIn(ds: NedbDatastore): Promise<string[]> {
  const docs = (await ds.find({}, { channelID: 1 })) as { channelID?: unknown }[];
  return docs.flatMap((doc) => (typeof doc.channelID === 'string' ? [doc.channelID] : []));
}
