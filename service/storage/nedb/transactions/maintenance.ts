/** Start-up recovery and retention for the transaction log: both work on whole days, never by scanning. */
import type { Logger } from 'pino';
import { finishInterrupted } from '../../interrupted.js';
import { StoreError } from '../../store.js';
import type { TransactionRecord } from '../../transactions.js';
import { describeError } from '../errors.js';
import type { DayIndex } from './day-index.js';
import { dayOfId, isDay } from './ids.js';
import type { Journal } from './journal.js';
import type { PartitionCache } from './partitions.js';
import { COLLECTION } from './query.js';

/** The parts of an open transaction log. */
export interface Opened {
  index: DayIndex;
  journal: Journal;
  partitions: PartitionCache;
}

/** Finishes the journaled transactions of the previous run still Processing (storage/interrupted.ts); returns how many. */
export async function failInterrupted({ index, journal, partitions }: Opened, logger: Logger): Promise<number> {
  const byDay = new Map<string | null, string[]>();
  for (const id of journal.takeLeftover()) {
    const day = dayOfId(id);
    byDay.set(day, [...(byDay.get(day) ?? []), id]);
  }
  let failed = 0;
  for (const [day, ids] of byDay) {
    // Entries of dropped days (or malformed ones) have nothing left to fail.
    if (day !== null && index.has(day)) {
      try {
        failed += await partitions.use(
          day,
          async (ds) => {
            const left = (await ds.find({ _id: { $in: ids }, status: 'Processing' })) as TransactionRecord[];
            for (const record of left) {
              const { set, unsetStatusIfInterrupted } = finishInterrupted(record);
              await ds.update({ _id: record._id }, { $set: set, ...(unsetStatusIfInterrupted ? { $unset: { statusIfInterrupted: true } } : {}) });
            }
            return left.length;
          },
          true,
        );
      } catch (err) {
        // Left in the journal, so the next start tries again; one damaged day must not stop start-up.
        logger.error({ day, err }, `cannot finish interrupted transactions: ${describeError(err)}`);
        continue;
      }
    }
    await journal.remove(ids);
  }
  if (failed > 0) logger.warn({ finished: failed }, 'transactions interrupted by the previous stop were finished: Failed, or as their client was answered');
  return failed;
}

/** Deletes the partitions (files and index entries) of the days before `day`; returns those days. */
export async function dropDaysBefore({ index, partitions }: Opened, day: string, logger: Logger): Promise<string[]> {
  if (!isDay(day)) throw new StoreError(`${COLLECTION}: "${String(day)}" is not a day (yyyy-mm-dd)`);
  const dropped = index.days().filter((d) => d < day);
  for (const old of dropped) {
    // The file goes first: a crash in between leaves an index entry for an empty day, not an unlisted file.
    await partitions.drop(old);
    await index.forget(old);
    logger.info({ day: old, file: partitions.fileOf(old) }, 'transaction partition dropped by retention');
  }
  return dropped;
}
