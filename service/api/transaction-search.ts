/**
 * What the transactions routes and the bulk re-run need of the clinical search (issue 37): whether it is on, the
 * index's keys of a page (the list's `match`), a count that stops at ESTIMATE_CAP for a text search, and the
 * index's status for admins.
 */
import { AppError } from '../errors.js';
import { invalidInput } from '../refusals.js';
import { badlyEscapedKeys } from '../domain/operations/log-lines.js';
import { ESTIMATE_CAP, isSearchParam, matchedKeys, searchesIndex } from '../domain/transactions/transaction-search.js';
import type { SearchIndexStatus, TransactionKeyMatch } from '../contracts/transactions.js';
import type { SearchIndex } from '../storage/search-index.js';
import type { TransactionFilter, TransactionLog } from '../storage/transactions.js';

export interface TransactionSearch {
  /** `search.enabled`: off, nothing is indexed and a key or text search is refused rather than answered wrongly. */
  enabled: boolean;
  index: Pick<SearchIndex, 'keysOf' | 'state' | 'stats'>;
  /** `search.countWithinMs`: how long a text search's count may take before its total is estimated. */
  countWithinMs?: number;
  /** How this instance's indexer fares (its last failure), when it runs here. */
  health?: () => { lastError?: string; lastRunAt?: string };
}

/**
 * 400 for a search parameter whose percent-escapes do not decode (`patientId=%ZZ`): the query parser keeps such text as
 * it came, so the search would look for a value the caller never meant.
 */
export function refuseGarbledSearch(url: string): void {
  const at = url.indexOf('?');
  const garbled = at < 0 ? [] : badlyEscapedKeys(url.slice(at + 1)).filter(isSearchParam);
  if (garbled.length > 0) throw invalidInput(garbled.map((key) => ({ path: `querystring.${key}`, message: 'has a malformed percent-escape: encode the text (as %25 for %)' })));
}

/** 409 SEARCH_DISABLED for a key or text search while search is off (or not available on this service). */
export function refuseSearchWhenOff(filter: TransactionFilter, search: TransactionSearch): void {
  if (searchesIndex(filter) && !search.enabled) {
    throw new AppError('SEARCH_DISABLED', 'Searching by patient ID, order number, control ID, message type or text is off on this Junction (search.enabled is false); the other filters still work');
  }
}

/** The keys that made each of these transactions match the filter's key conditions; empty when it has none. */
export async function keyMatches(filter: TransactionFilter, ids: readonly string[], search: TransactionSearch): Promise<Map<string, TransactionKeyMatch[]>> {
  const conditions = filter.keys ?? [];
  const result = new Map<string, TransactionKeyMatch[]>();
  if (conditions.length === 0 || ids.length === 0) return result;
  const stored = await search.index.keysOf(ids);
  for (const [id, keys] of stored) {
    const matched = matchedKeys(keys, conditions);
    if (matched.length > 0) result.set(id, matched);
  }
  return result;
}

/**
 * How many transactions match: exact, except for a text search, which counts up to ESTIMATE_CAP, for at most
 * `withinMs`, and then says it stopped (a common word can match millions of bodies, and reading their postings from
 * a cold disk takes seconds): the count so far or the engine's estimate, never less than `atLeast` (what the page
 * already showed: its offset and rows).
 */
export async function countMatches(log: TransactionLog, filter: TransactionFilter, cap = ESTIMATE_CAP, options: { withinMs?: number; atLeast?: number } = {}): Promise<{ count: number; estimated: boolean }> {
  if (filter.text === undefined) return { count: await log.count(filter), estimated: false };
  const counted = await log.countUpTo(filter, cap, options.withinMs === undefined ? {} : { withinMs: options.withinMs });
  if (counted.exact) return { count: counted.count, estimated: false };
  return { count: Math.max(counted.count, Math.min(cap, options.atLeast ?? 0)), estimated: true };
}

/** `GET /transactions/search-index`: the state the indexer keeps with the index, and its size. */
export async function searchIndexStatus(log: Pick<TransactionLog, 'lastFinishedSeq'>, search: TransactionSearch): Promise<SearchIndexStatus> {
  const [state, stats, last] = await Promise.all([search.index.state(), search.index.stats(), log.lastFinishedSeq()]);
  const total = Math.max(state.backfillTotal, state.backfillCovered);
  const percent = state.backfillDone ? 100 : total === 0 ? 0 : Math.min(99, Math.floor((state.backfillCovered / total) * 100));
  const health = search.health?.() ?? {};
  return {
    ...health,
    enabled: search.enabled,
    pending: search.enabled ? Math.max(0, last - state.finishedSeq) : 0,
    backfill: { done: state.backfillDone, covered: state.backfillCovered, total, percent },
    transactions: stats.transactions,
    keys: stats.keys,
    bytes: stats.bytes,
  };
}
