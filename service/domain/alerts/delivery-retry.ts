/**
 * When a message that could not be sent is tried again: waits double from 30 seconds up to an hour, and after
 * `maxAttempts` tries it is failed for good. Pure.
 */

/** The first wait after a failed try. */
export const FIRST_RETRY_MS = 30_000;
/** The longest wait between two tries. */
export const MAX_RETRY_MS = 60 * 60_000;

/** The wait after the `attempts`-th failed try (1 → 30 s, 2 → 60 s, ... capped at one hour). */
export function retryDelayMs(attempts: number): number {
  const doublings = Math.max(0, Math.floor(attempts) - 1);
  // 2^7 × 30 s is already past the cap; stopping there keeps the product exact for any count.
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(doublings, 7));
}

/** What becomes of a message after a failed try. */
export type AfterFailure = { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' };

/**
 * The outcome of a failed try, given the tries made so far (this one included): another try later, or failed for
 * good once `maxAttempts` are used up or the failure cannot pass by itself (`permanent`, such as no server set).
 */
export function afterFailedTry(attempts: number, maxAttempts: number, now: Date, permanent = false): AfterFailure {
  if (permanent || attempts >= maxAttempts) return { status: 'failed' };
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts)) };
}
