/** Sliding-window limit on failed logins: pure arithmetic over failure timestamps. */

export interface ThrottlePolicy {
  maxFailures: number;
  windowMs: number;
}

/** Drops failures that have left the window. */
export function recentFailures(failures: readonly number[], policy: ThrottlePolicy, now: number): number[] {
  return failures.filter((t) => t > now - policy.windowMs);
}

/** Milliseconds until another attempt is allowed; 0 when allowed now. */
export function waitBeforeNextAttempt(failures: readonly number[], policy: ThrottlePolicy, now: number): number {
  const recent = recentFailures(failures, policy, now);
  if (recent.length < policy.maxFailures) return 0;
  // The attempt becomes allowed when enough of the oldest failures have aged out of the window.
  const sorted = [...recent].sort((a, b) => a - b);
  const freeing = sorted[recent.length - policy.maxFailures] ?? now;
  return Math.max(1, freeing + policy.windowMs - now);
}
