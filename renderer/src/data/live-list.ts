/**
 * The transaction list kept live: when the list may take new transactions straight from the live feed, and how a
 * pushed start or completion changes the page on screen. Pure: the page and the store call these.
 *
 * The list follows the feed only on the view where a new row cannot surprise anyone: the first page, in the default
 * order (newest first; the list has no other order yet), with no filter (a pushed event carries too little to tell
 * whether it matches one), nothing selected (rows moving under the pointer make selection unreliable), and not paused.
 * Anywhere else new arrivals are counted and announced instead.
 */
import type { LiveTransaction } from '../../../service/contracts/live-feed';
import type { TransactionView } from '../../../service/contracts/transactions';
import { hasFilters } from './transaction-filters';
import type { ListQuery } from './transaction-filters';
import { timeFromId } from './status';

/** Why the list is not following the feed. */
export type LiveHold = 'paused' | 'filtered' | 'page' | 'selection';

/** What the list is doing with new transactions, for the line under the filters. */
export const HOLD_TEXT: Record<LiveHold, string> = {
  paused: 'Live updates paused',
  filtered: 'Live updates off while filters are set',
  page: 'Live updates only on the first page',
  selection: 'Live updates off while rows are selected',
};

/** An id's arrival second as sortable text: ids start with 8 hex digits of epoch seconds, then random ones. */
function second(id: string): string {
  return id.slice(0, 8);
}

/** Why the list must not take new rows by itself, or null when it follows the live feed. */
export function liveHold(query: ListQuery, selectedCount: number, paused: boolean): LiveHold | null {
  if (paused) return 'paused';
  if (selectedCount > 0) return 'selection';
  if (hasFilters(query.filters)) return 'filtered';
  if (query.page !== 1) return 'page';
  return null;
}

/**
 * A row for a transaction known only from its live event. What the event does not carry (client, query string,
 * the exact time) is filled in when the page is next read from the server.
 */
export function rowFromEvent(event: LiveTransaction, now: Date): TransactionView {
  const at = (timeFromId(event.transactionId) ?? now).toISOString();
  return {
    _id: event.transactionId,
    channelID: event.channelID,
    clientIP: '',
    status: event.status,
    canRerun: false,
    autoRetry: false,
    autoRetryAttempt: 0,
    request: { method: event.method, path: event.path, querystring: '', timestamp: at },
    ...(event.responseStatus === undefined ? {} : { response: { status: event.responseStatus, timestamp: now.toISOString() } }),
  };
}

/** The page with a newly started transaction on top, still `size` rows at most; unchanged when it is already there. */
export function withStarted(rows: readonly TransactionView[], event: LiveTransaction, size: number, now: Date): TransactionView[] | null {
  if (rows.some((row) => row._id === event.transactionId)) return null;
  return [rowFromEvent(event, now), ...rows].slice(0, size);
}

/**
 * The page with a completed transaction's new status and response code in place; null when it is not on the page.
 * A completion whose start was missed (it began before the page was read, or the start frame was dropped) is put on
 * top only when it is newer than every row, which is where the server would list it.
 */
export function withCompleted(rows: readonly TransactionView[], event: LiveTransaction, size: number, now: Date): TransactionView[] | null {
  const index = rows.findIndex((row) => row._id === event.transactionId);
  if (index === -1) {
    const newest = rows[0];
    if (newest !== undefined && second(event.transactionId) < second(newest._id)) return null;
    return [rowFromEvent(event, now), ...rows].slice(0, size);
  }
  const row = rows[index] as TransactionView;
  const updated: TransactionView = {
    ...row,
    status: event.status,
    ...(event.responseStatus === undefined ? {} : { response: { ...row.response, status: event.responseStatus, timestamp: row.response?.timestamp ?? now.toISOString() } }),
  };
  return rows.map((r, i) => (i === index ? updated : r));
}

/**
 * A first page just read from the server, with the rows the feed pushed while it was being read kept on top: those
 * not older than anything the answer holds.
 */
export function mergeLoaded(loaded: readonly TransactionView[], current: readonly TransactionView[], size: number): TransactionView[] {
  const ids = new Set(loaded.map((row) => row._id));
  const newest = second(loaded[0]?._id ?? '');
  const pushed = current.filter((row) => !ids.has(row._id) && second(row._id) >= newest);
  return [...pushed, ...loaded].slice(0, size);
}
