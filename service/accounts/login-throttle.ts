/**
 * Failed-authentication tracking per identity, per identity and address, and per address, in memory (a restart
 * forgives, which is acceptable). The rules are in domain/access/login-throttle.ts; `LoginThrottle` is the management API's
 * use (identity = account email), `FailureThrottle` is shared by every transaction port (identity = client id).
 */
import { createHash } from 'node:crypto';
import { recentFailures, waitBeforeAttempt } from '../domain/access/login-throttle.js';
import type { IdentityThrottlePolicy, ThrottlePolicy } from '../domain/access/login-throttle.js';

export interface FailureThrottleOptions {
  maxFailuresPerIdentityAndAddress: number;
  /** Applies only to addresses that have themselves failed for the identity (see IdentityThrottlePolicy). */
  maxFailuresPerIdentity: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
  now?: () => number;
  /** Maps equivalent spellings of an identity to one key (emails are case-insensitive; client ids are not). */
  normaliseIdentity?: (identity: string) => string;
}

// Bounds memory when an attacker sprays many identities or addresses.
const MAX_KEYS = 50_000;
// A claimed identity comes from the request (up to the header size limit); long ones are kept as a digest.
const MAX_KEY_CHARS = 128;

function boundedKey(identity: string): string {
  return identity.length <= MAX_KEY_CHARS ? identity : `sha256:${createHash('sha256').update(identity).digest('base64')}`;
}

export class FailureThrottle {
  readonly #pairs = new Map<string, number[]>();
  readonly #identities = new Map<string, number[]>();
  readonly #addresses = new Map<string, number[]>();
  readonly #pending = new Map<string, number>();
  readonly #policy: IdentityThrottlePolicy;
  readonly #now: () => number;
  readonly #normalise: (identity: string) => string;

  constructor(options: FailureThrottleOptions) {
    const windowMs = options.windowSeconds * 1000;
    this.#policy = {
      perIdentityAndAddress: { maxFailures: options.maxFailuresPerIdentityAndAddress, windowMs },
      perIdentity: { maxFailures: options.maxFailuresPerIdentity, windowMs },
      perAddress: { maxFailures: options.maxFailuresPerAddress, windowMs },
    };
    this.#now = options.now ?? Date.now;
    this.#normalise = options.normaliseIdentity ?? ((identity) => identity);
  }

  /**
   * Seconds the caller must wait before trying this identity from this address; 0 when allowed. `identity` is
   * undefined when the credentials name none before they are checked: then only the address limit applies.
   */
  retryAfterSeconds(identity: string | undefined, address: string): number {
    const keys = this.#keys(identity, address);
    const wait = waitBeforeAttempt(
      {
        identityAndAddress: keys.pair === undefined ? [] : (this.#pairs.get(keys.pair) ?? []),
        identity: keys.identity === undefined ? [] : (this.#identities.get(keys.identity) ?? []),
        address: this.#addresses.get(keys.address) ?? [],
        pending: {
          identityAndAddress: keys.pair === undefined ? 0 : this.#pendingOf(`p\0${keys.pair}`),
          identity: keys.identity === undefined ? 0 : this.#pendingOf(`i\0${keys.identity}`),
          address: this.#pendingOf(`a\0${keys.address}`),
        },
      },
      this.#policy,
      this.#now(),
    );
    return Math.ceil(wait / 1000);
  }

  /**
   * Marks an attempt as being checked, so concurrent attempts count against the limit before they settle. Call the
   * returned function once the attempt has been recorded as a failure or a success (calling it twice is harmless).
   */
  begin(identity: string | undefined, address: string): () => void {
    const keys = this.#keys(identity, address);
    const pendingKeys = [`a\0${keys.address}`];
    if (keys.pair !== undefined) pendingKeys.push(`p\0${keys.pair}`);
    if (keys.identity !== undefined) pendingKeys.push(`i\0${keys.identity}`);
    for (const key of pendingKeys) this.#pending.set(key, this.#pendingOf(key) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of pendingKeys) {
        const left = this.#pendingOf(key) - 1;
        if (left > 0) this.#pending.set(key, left);
        else this.#pending.delete(key);
      }
    };
  }

  /** Counts one failed attempt against the identity, the identity from this address, and the address. */
  recordFailure(identity: string | undefined, address: string): void {
    const now = this.#now();
    const keys = this.#keys(identity, address);
    if (keys.pair !== undefined) this.#push(this.#pairs, keys.pair, this.#policy.perIdentityAndAddress, now);
    if (keys.identity !== undefined) this.#push(this.#identities, keys.identity, this.#policy.perIdentity, now);
    this.#push(this.#addresses, keys.address, this.#policy.perAddress, now);
  }

  /**
   * A success clears the identity's failures from this address only. The identity's total is kept: resetting it on
   * every success of the real owner would refill a distributed guesser's budget, and it never holds back an address
   * that has not failed. The address keeps its count too, against spraying.
   */
  recordSuccess(identity: string, address: string): void {
    const keys = this.#keys(identity, address);
    if (keys.pair !== undefined) this.#pairs.delete(keys.pair);
  }

  #keys(identity: string | undefined, address: string): { pair?: string; identity?: string; address: string } {
    if (identity === undefined || identity === '') return { address };
    const key = boundedKey(this.#normalise(identity));
    return { pair: `${key}\0${address}`, identity: key, address };
  }

  #pendingOf(key: string): number {
    return this.#pending.get(key) ?? 0;
  }

  #push(map: Map<string, number[]>, key: string, policy: ThrottlePolicy, now: number): void {
    const list = recentFailures(map.get(key) ?? [], policy, now);
    list.push(now);
    // Re-inserting keeps the map in order of last failure, so the oldest entry is evicted first.
    map.delete(key);
    map.set(key, list.slice(-policy.maxFailures * 2));
    if (map.size > MAX_KEYS) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
  }
}

export interface LoginThrottleOptions {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
  now?: () => number;
}

/**
 * The management API's login throttle: accounts are emails (case-insensitive). `maxFailuresPerAccount` limits one
 * account from one address, and the account's total over all addresses, which holds back only addresses that have
 * failed for it: someone guessing an admin's password cannot lock the admin out from another address.
 */
export class LoginThrottle extends FailureThrottle {
  constructor(options: LoginThrottleOptions) {
    super({
      maxFailuresPerIdentityAndAddress: options.maxFailuresPerAccount,
      maxFailuresPerIdentity: options.maxFailuresPerAccount,
      maxFailuresPerAddress: options.maxFailuresPerAddress,
      windowSeconds: options.windowSeconds,
      normaliseIdentity: (account) => account.toLowerCase(),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }
}
