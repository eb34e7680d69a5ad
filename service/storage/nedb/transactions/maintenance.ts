/** Start-up recovery and retention for the transaction log: both work on whole days, never by scanning. */
import type { Logger } from 'pino';
import { StoreError } from '../../store.js';
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

const INTERRUPTED = 'Interrupted: Junction stopped before the transaction completed';

/** Marks Failed the journaled transactions of the previous run still Processing; returns how many. */
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
        const update = { $set: { status: 'Failed', error: { message: INTERRUPTED } } };
        failed += await partitions.use(day, (ds) => ds.update({ _id: { $in: ids }, status: 'Processing' }, update, { multi: true }), true);
      } catch (err) {
        // Left in the journal, so the next start tries again; one damaged day must not stop start-up.
        logger.error({ day, err }, `cannot mark interrupted transactions Failed: ${describeError(err)}`);
        continue;
      }
    }
    await journal.remove(ids);
  }
  if (failed > 0) logger.warn({ failed }, 'transactions interrupted by the previous stop were marked Failed');
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
