/**
 * Sliding-window limits on failed authentications: pure arithmetic over failure timestamps. Used for management API
 * logins (identity = account) and for clients of the transaction ports (identity = claimed client id).
 */

export interface ThrottlePolicy {
  maxFailures: number;
  windowMs: number;
}

/** Drops failures that have left the window. */
export function recentFailures(failures: readonly number[], policy: ThrottlePolicy, now: number): number[] {
  return failures.filter((t) => t > now - policy.windowMs);
}

/**
 * Milliseconds until another attempt is allowed; 0 when allowed now. `pending` attempts are still being checked and
 * count as failures, so a burst of concurrent guesses cannot all slip past the limit before the first one fails.
 */
export function waitBeforeNextAttempt(failures: readonly number[], policy: ThrottlePolicy, now: number, pending = 0): number {
  const recent = recentFailures(failures, policy, now);
  if (recent.length + pending < policy.maxFailures) return 0;
  // Only pending attempts fill the limit: they settle within moments, so the caller need not wait a whole window.
  if (recent.length < policy.maxFailures) return 1000;
  // The attempt becomes allowed when enough of the oldest failures have aged out of the window.
  const sorted = [...recent].sort((a, b) => a - b);
  const freeing = sorted[recent.length - policy.maxFailures] ?? now;
  return Math.max(1, freeing + policy.windowMs - now);
}

/**
 * The three limits on one attempt. Why three, and why the per-identity limit is conditional:
 * - per identity and address: bounds guessing one identity's secret from one address;
 * - per address, whatever identity (or none) is claimed: bounds spraying many identities from one address, and covers
 *   credentials that name no identity before they are checked (custom tokens, unreadable headers);
 * - per identity over all addresses: bounds a guesser spread over many addresses, but holds back only addresses that
 *   have themselves failed for that identity recently. An attacker can therefore never lock the real owner out: a
 *   caller presenting valid credentials from an address that has not failed is never refused by someone else's
 *   failures. A distributed attacker gets at most one guess per fresh address once the limit is reached.
 */
export interface IdentityThrottlePolicy {
  perIdentityAndAddress: ThrottlePolicy;
  perIdentity: ThrottlePolicy;
  perAddress: ThrottlePolicy;
}

/** Failure timestamps (and attempts still being checked) that bear on one attempt. */
export interface AttemptHistory {
  /** Failures of this identity from this address; empty when no identity is claimed. */
  identityAndAddress: readonly number[];
  /** Failures of this identity from any address; empty when no identity is claimed. */
  identity: readonly number[];
  /** Failures from this address, whatever the identity. */
  address: readonly number[];
  pending?: { identityAndAddress: number; identity: number; address: number };
}

/** Milliseconds until an attempt for this identity from this address is allowed; 0 when allowed now. */
export function waitBeforeAttempt(history: AttemptHistory, policy: IdentityThrottlePolicy, now: number): number {
  const pending = history.pending ?? { identityAndAddress: 0, identity: 0, address: 0 };
  const pairWait = waitBeforeNextAttempt(history.identityAndAddress, policy.perIdentityAndAddress, now, pending.identityAndAddress);
  const addressWait = waitBeforeNextAttempt(history.address, policy.perAddress, now, pending.address);
  const ownFailures = recentFailures(history.identityAndAddress, policy.perIdentityAndAddress, now);
  let identityWait = 0;
  if (ownFailures.length > 0) {
    identityWait = waitBeforeNextAttempt(history.identity, policy.perIdentity, now, pending.identity);
    // The address is released as soon as its own last failure leaves the window, whatever others keep doing.
    const released = Math.max(...ownFailures) + policy.perIdentityAndAddress.windowMs - now;
    identityWait = Math.min(identityWait, Math.max(1, released));
  }
  return Math.max(pairWait, addressWait, identityWait);
}
