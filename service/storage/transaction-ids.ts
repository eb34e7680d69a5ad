/**
 * Transaction ids and the UTC days they map to, the same for every engine: the id alone names the request day, so
 * an engine can find or refuse an id without a lookup, and retention can drop whole days.
 */
import { isObjectId, newSequentialObjectId } from './object-ids.js';
import type { TransactionIdFactory } from './transactions.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A new id taken at the request time, so the id names the request day; sequential within the process (object-ids.ts)
 * so the log's id index and the body paths built from it grow at their ends.
 */
export const newTransactionId: TransactionIdFactory = (at: Date): string => newSequentialObjectId(at);

const DAY_MS = 86_400_000;
// The last day named, as the range of epoch ms it covers: a proxied request asks for its day five or six times
// (ids, body paths, checks), nearly always the same day, and toISOString was 2% of the storage work's CPU.
let cachedFrom = Number.NaN;
let cachedDay = '';

/** The UTC day (`yyyy-mm-dd`) of a date; throws RangeError for an invalid one. */
export function dayOf(date: Date): string {
  return dayOfMs(date.getTime());
}

function dayOfMs(ms: number): string {
  // NaN fails both comparisons, so an invalid date reaches toISOString and throws there.
  if (ms >= cachedFrom && ms < cachedFrom + DAY_MS) return cachedDay;
  const day = new Date(ms).toISOString().slice(0, 10);
  cachedFrom = Math.floor(ms / DAY_MS) * DAY_MS;
  cachedDay = day;
  return day;
}

/** The UTC day encoded in a transaction id, or null when the value is not a transaction id. */
export function dayOfId(id: unknown): string | null {
  if (!isObjectId(id)) return null;
  return dayOfMs(Number.parseInt(id.slice(0, 8), 16) * 1000);
}

/** True for a real calendar day written `yyyy-mm-dd`. */
export function isDay(value: unknown): value is string {
  if (typeof value !== 'string' || !DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && dayOf(date) === value;
}
