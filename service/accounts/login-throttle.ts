/** Failed-login tracking per account and per address, in memory (a restart forgives, which is acceptable). */
import { recentFailures, waitBeforeNextAttempt } from '../domain/login-throttle.js';
import type { ThrottlePolicy } from '../domain/login-throttle.js';

export interface LoginThrottleOptions {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
  now?: () => number;
}

// Bounds memory when an attacker sprays many accounts or addresses.
const MAX_KEYS = 50_000;

export class LoginThrottle {
  readonly #accounts = new Map<string, number[]>();
  readonly #addresses = new Map<string, number[]>();
  readonly #account: ThrottlePolicy;
  readonly #address: ThrottlePolicy;
  readonly #now: () => number;

  constructor(options: LoginThrottleOptions) {
    const windowMs = options.windowSeconds * 1000;
    this.#account = { maxFailures: options.maxFailuresPerAccount, windowMs };
    this.#address = { maxFailures: options.maxFailuresPerAddress, windowMs };
    this.#now = options.now ?? Date.now;
  }

  /** Seconds the caller must wait before trying this account from this address; 0 when allowed. */
  retryAfterSeconds(account: string, address: string): number {
    const now = this.#now();
    const wait = Math.max(
      waitBeforeNextAttempt(this.#accounts.get(account.toLowerCase()) ?? [], this.#account, now),
      waitBeforeNextAttempt(this.#addresses.get(address) ?? [], this.#address, now),
    );
    return Math.ceil(wait / 1000);
  }

  /** Counts one failed attempt against both the account and the address. */
  recordFailure(account: string, address: string): void {
    const now = this.#now();
    this.#push(this.#accounts, account.toLowerCase(), this.#account, now);
    this.#push(this.#addresses, address, this.#address, now);
  }

  /** A successful login clears the account's failures (the address keeps its count, against password spraying). */
  recordSuccess(account: string): void {
    this.#accounts.delete(account.toLowerCase());
  }

  #push(map: Map<string, number[]>, key: string, policy: ThrottlePolicy, now: number): void {
    const list = recentFailures(map.get(key) ?? [], policy, now);
    list.push(now);
    map.delete(key);
    map.set(key, list.slice(-policy.maxFailures * 2));
    if (map.size > MAX_KEYS) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
  }
}
