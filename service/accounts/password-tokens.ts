/**
 * Set-password tokens, OpenHIM's way of onboarding users: an invited user (`newUser`) or one who asked for a reset
 * (`existingUser`) gets a link carrying a random token. Only the token's digest is stored; it is single use and
 * expires. Sending the link is one call (`PasswordLinkSender`): `app.ts` gives one that emails it through the outbox
 * (notify/password-links.ts); without one, the default sender only notes that nothing was sent, and an admin hands
 * the link over from the console.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { PasswordTokenType } from '../contracts/api.js';
import type { UserRecord } from '../storage/records.js';

/** How long a link stays valid: an invitation as long as OpenHIM's default (7 days); a reset one day. */
export const TOKEN_LIFETIME_MS: Record<PasswordTokenType, number> = {
  newUser: 7 * 24 * 60 * 60_000,
  existingUser: 24 * 60 * 60_000,
};

/** A new token: 32 random bytes as hex, and the digest that is stored in its place. */
export function newPasswordToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('hex');
  return { token, hash: passwordTokenDigest(token) };
}

/** The stored form of a token: sha256 hex, so a copy of the data folder yields no usable link. */
export function passwordTokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Delivers a set-password link to its user (by email: notify/password-links.ts). */
export type PasswordLinkSender = (link: { user: UserRecord; token: string; tokenType: PasswordTokenType; expiry: Date }) => Promise<void>;

/** The sender when none is given (tests, embeddings): it sends nothing and says so (never logging the token). */
export function unsentLinks(logger: Logger): PasswordLinkSender {
  return ({ user, tokenType }) => {
    logger.info({ email: user.email, tokenType }, 'a set-password link was made but not sent: no sender is set up; an admin can give the user a link from the users page');
    return Promise.resolve();
  };
}

const MAX_KEYS = 10_000;

/**
 * Counts requests per key in a fixed window, for the public reset request: it must not become a way to flood a
 * mailbox or to churn someone's pending link.
 */
export class RequestWindow {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #started = 0;
  readonly #counts = new Map<string, number>();

  constructor(options: { limit: number; windowMs: number; now?: () => number }) {
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#now = options.now ?? Date.now;
  }

  /** Counts one request for `key`; false once the key has used up its window. */
  take(key: string): boolean {
    const now = this.#now();
    if (now - this.#started >= this.#windowMs) {
      this.#started = now;
      this.#counts.clear();
    }
    const used = this.#counts.get(key) ?? 0;
    // A flood of distinct keys is refused rather than allowed to grow the map without bound.
    if (used >= this.#limit || (used === 0 && this.#counts.size >= MAX_KEYS)) return false;
    this.#counts.set(key, used + 1);
    return true;
  }

  /** Seconds until the window starts again. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.#started + this.#windowMs - this.#now()) / 1000));
  }
}
