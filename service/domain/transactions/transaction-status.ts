/** Transaction statuses (SPEC.md "States and transitions") and status-code patterns, as pure functions. */

import { TRANSACTION_STATUSES } from '../../contracts/vocabulary.js';
import type { TransactionStatus } from '../../contracts/vocabulary.js';

// The list is the wire's (contracts/vocabulary.ts); it is offered here too, beside the rules that use it.
export { TRANSACTION_STATUSES };
export type { TransactionStatus };

/** What one route produced: an HTTP status, or a network failure / timeout (no status). */
export interface RouteOutcome {
  status?: number;
  /**
   * The answer started (it has a status) but did not get through whole: the route reset or stalled in the middle of
   * its body, or, for the primary, the client left before it had all of it. Counts as a failure, like no answer:
   * whoever waited for it did not get a usable answer.
   */
  incomplete?: boolean;
}

function is2xx(outcome: RouteOutcome): boolean {
  return outcome.incomplete !== true && outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
}

// A route that never answered (reset, refused, timed out), or whose answer broke off, counts like a 5xx.
function is5xxOrFailed(outcome: RouteOutcome): boolean {
  return outcome.status === undefined || outcome.status >= 500 || outcome.incomplete === true;
}

/**
 * The final status once every route has answered: primary 5xx → Failed; else any other route 5xx → Completed with
 * error(s); all 2xx → Successful; otherwise Completed. A mediator's own status, when it sent one, wins.
 */
export function computeStatus(primary: RouteOutcome, secondaries: readonly RouteOutcome[], mediatorStatus?: TransactionStatus): TransactionStatus {
  if (mediatorStatus !== undefined) return mediatorStatus;
  if (is5xxOrFailed(primary)) return 'Failed';
  if (secondaries.some(is5xxOrFailed)) return 'Completed with error(s)';
  if (is2xx(primary) && secondaries.every(is2xx)) return 'Successful';
  return 'Completed';
}

/** True for the five transaction status names. */
export function isTransactionStatus(value: unknown): value is TransactionStatus {
  return typeof value === 'string' && (TRANSACTION_STATUSES as readonly string[]).includes(value);
}

/** Parses a status-code filter: `500` or a class such as `5xx`; null when malformed. */
export function parseStatusPattern(pattern: string | number): { min: number; max: number } | null {
  const text = String(pattern).trim().toLowerCase();
  if (/^[1-5]\d\d$/.test(text)) return { min: Number(text), max: Number(text) };
  const range = /^([1-5])xx$/.exec(text);
  if (range?.[1] !== undefined) return { min: Number(range[1]) * 100, max: Number(range[1]) * 100 + 99 };
  return null;
}

/** True when a status code falls in a pattern such as `401` or `4xx`. */
export function statusMatches(pattern: string | number, code: number): boolean {
  const range = parseStatusPattern(pattern);
  return range !== null && code >= range.min && code <= range.max;
}
