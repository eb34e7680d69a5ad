/**
 * OpenHIM's paging (`filterLimit` items per page, `filterPage` counted from 0) as a window of the list. Pure.
 * `filterLimit=0` means no limit, as in OpenHIM, where Mongo's `limit(0)` returns everything.
 */

/** Most items one page may ask for: a task holds at most this many transactions, so the bulk re-run preview (the console asks for 10,000) never needs more; longer lists use `filterLimit=0`, which is streamed. */
export const MAX_PAGE_LIMIT = 100_000;

/** A page as rows to skip and rows to return; `limit: 0` is no limit. */
export interface PageWindow {
  limit: number;
  skip: number;
}

/** The window of a page, or null when `limit × page` is beyond exact integers (no list is that long). */
export function pageWindow(limit: number, page: number): PageWindow | null {
  const skip = limit * page;
  return Number.isSafeInteger(skip) ? { limit, skip } : null;
}
