/**
 * Transaction ids and the UTC days they map to, the same for every engine: the id alone names the request day, so
 * an engine can find or refuse an id without a lookup, and retention can drop whole days.
 */
import { randomBytes } from 'node:crypto';
import type { TransactionIdFactory } from './transactions.js';

const ID = /^[0-9a-f]{24}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A new id: 8 hex digits of epoch seconds (MongoDB ObjectId layout) and 16 random hex digits. */
export const newTransactionId: TransactionIdFactory = (at: Date): string => {
  const seconds = Math.floor(at.getTime() / 1000);
  // Eight hex digits hold 1970 to 2106; anything else could not be mapped back to its day.
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > 0xffffffff) throw new RangeError(`Cannot make a transaction id for ${String(at)}`);
  return seconds.toString(16).padStart(8, '0') + randomBytes(8).toString('hex');
};

/** The UTC day (`yyyy-mm-dd`) of a date. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The UTC day encoded in a transaction id, or null when the value is not a transaction id. */
export function dayOfId(id: unknown): string | null {
  if (typeof id !== 'string' || !ID.test(id)) return null;
  return dayOf(new Date(Number.parseInt(id.slice(0, 8), 16) * 1000));
}

/** True for a real calendar day written `yyyy-mm-dd`. */
export function isDay(value: unknown): value is string {
  if (typeof value !== 'string' || !DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && dayOf(date) === value;
}
