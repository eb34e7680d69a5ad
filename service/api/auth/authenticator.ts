/**
 * Checks API credentials: passwords (local login and HTTP Basic), session cookies and the deprecated token
 * headers. Applies the failed-login throttle and records every login attempt as an audit event.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { AuditRecorder } from '../../audit/recorder.js';
import type { LoginMethod } from '../../audit/events.js';
import type { LoginThrottle } from '../../accounts/login-throttle.js';
import type { Sessions } from '../../accounts/sessions.js';
import type { UserAccounts } from '../../accounts/users.js';
import { legacyTokenMatches } from '../../accounts/passwords.js';
import type { SessionRecord, UserRecord } from '../../storage/records.js';
import { StoreError } from '../../storage/store.js';

/** The deprecated token scheme accepts an auth-ts at most this far from the server clock. */
export const TOKEN_MAX_AGE_MS = 2000;

// A verified Basic credential is remembered briefly so a mediator polling every few seconds does not pay for scrypt
// (and fill the audit log) on every request. The key includes the stored hash, so a password change invalidates it.
const BASIC_CACHE_MS = 5 * 60_000;
const BASIC_CACHE_MAX = 1000;
// How long a checked session still opens the routes that serve during a database outage (the needs-attention list).
const SESSION_SEEN_MS = 5 * 60_000;

export interface AuthenticatorDeps {
  accounts: UserAccounts;
  sessions: Sessions;
  throttle: LoginThrottle;
  audit: AuditRecorder;
  now?: () => number;
}

export interface TokenHeaders {
  username: string;
  ts: string;
  salt: string;
  token: string;
}

function cacheKey(user: UserRecord, password: string): string {
  return createHash('sha256').update(`${user._id}\0${user.passwordHash ?? ''}\0${password}`).digest('hex');
}

export class Authenticator {
  readonly #deps: AuthenticatorDeps;
  readonly #now: () => number;
  readonly #basicCache = new Map<string, number>();
  /** Sessions checked against the store lately, by the token's hash: what a route open during an outage accepts. */
  readonly #sessionsSeen = new Map<string, { found: { user: UserRecord; session: SessionRecord }; at: number }>();
  readonly #basicInflight = new Map<string, Promise<UserRecord | null>>();
  readonly #tokenSaltsSeen = new Map<string, number>();
  readonly #tokenAudited = new Map<string, number>();
  readonly #anonymousAudited = new Map<string, number>();

  constructor(deps: AuthenticatorDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  #refuseIfThrottled(username: string, address: string): void {
    const wait = this.#deps.throttle.retryAfterSeconds(username, address);
    if (wait > 0) {
      throw new AppError('TOO_MANY_ATTEMPTS', `Too many failed login attempts; try again in ${wait} s`, { retryAfterSeconds: wait }, {
        headers: { 'retry-after': String(wait) },
      });
    }
  }

  async #fail(username: string, address: string, method: LoginMethod, reason: string, error: AppError): Promise<never> {
    this.#deps.throttle.recordFailure(username, address);
    await this.#deps.audit.login({ username, address, method, success: false, reason });
    throw error;
  }

  async #succeed(user: UserRecord, address: string, method: LoginMethod): Promise<UserRecord> {
    this.#deps.throttle.recordSuccess(user.email, address);
    await this.#deps.audit.login({ username: user.email, address, method, success: true });
    return user;
  }

  /** Local login and HTTP Basic: throttled, audited, and the same answer for a wrong password or an unknown user. */
  async password(username: string, password: string, address: string, method: 'local' | 'basic', failure: AppError): Promise<UserRecord> {
    this.#refuseIfThrottled(username, address);
    if (method === 'basic') {
      const known = await this.#deps.accounts.findByEmail(username);
      if (known !== null) {
        const key = cacheKey(known, password);
        const expires = this.#basicCache.get(key);
        if (expires !== undefined && expires > this.#now()) return known;
        // Concurrent first requests with the same credential share one scrypt run instead of queueing many.
        let pending = this.#basicInflight.get(key);
        if (pending === undefined) {
          pending = this.#verifyBasic(username, password, address, key).finally(() => this.#basicInflight.delete(key));
          this.#basicInflight.set(key, pending);
        }
        const user = await pending;
        return user ?? this.#fail(username, address, method, 'wrong username or password', failure);
      }
    }
    const user = await this.#deps.accounts.verify(username, password);
    if (user === null) return this.#fail(username, address, method, 'wrong username or password', failure);
    return this.#succeed(user, address, method);
  }

  async #verifyBasic(username: string, password: string, address: string, key: string): Promise<UserRecord | null> {
    const user = await this.#deps.accounts.verify(username, password);
    if (user === null) return null;
    this.#remember(key);
    return this.#succeed(user, address, 'basic');
  }

  #remember(key: string): void {
    const now = this.#now();
    if (this.#basicCache.size >= BASIC_CACHE_MAX) {
      for (const [k, expiry] of this.#basicCache) if (expiry <= now) this.#basicCache.delete(k);
      if (this.#basicCache.size >= BASIC_CACHE_MAX) this.#basicCache.clear();
    }
    this.#basicCache.set(key, now + BASIC_CACHE_MS);
  }

  /**
   * The sign-in that follows setting a password through a set-password link: the link, single-use and time-limited,
   * proved the caller reads the account's mail, and they have just chosen the password. Audited like any login.
   */
  async passwordLink(user: UserRecord, address: string): Promise<UserRecord> {
    return this.#succeed(user, address, 'set-password-link');
  }

  /**
   * An OpenID sign-in, throttled per address (and per email once known) and audited like a local login. `attempt`
   * finishes the sign-in and fills `seen.email` as soon as the provider has named the user.
   */
  async openid(address: string, attempt: (seen: { email?: string }) => Promise<UserRecord>): Promise<UserRecord> {
    this.#refuseIfThrottled('', address);
    const seen: { email?: string } = {};
    let user: UserRecord;
    try {
      user = await attempt(seen);
    } catch (error) {
      const reason = error instanceof AppError ? error.message : 'OpenID sign-in failed';
      // A provider that is down is not a guess at someone's account: no throttle for it.
      if (error instanceof AppError && error.code === 'OPENID_PROVIDER_UNAVAILABLE') {
        await this.#deps.audit.login({ username: seen.email ?? '', address, method: 'openid', success: false, reason });
        throw error;
      }
      return this.#fail(seen.email ?? '', address, 'openid', reason, error instanceof AppError ? error : new AppError('OPENID_REFUSED'));
    }
    return this.#succeed(user, address, 'openid');
  }

  /** The deprecated token scheme: the token must match the stored legacy credential and auth-ts be fresh. */
  async token(headers: TokenHeaders, address: string): Promise<UserRecord> {
    const { username } = headers;
    this.#refuseIfThrottled(username, address);
    const refuse = (reason: string) => this.#fail(username, address, 'token', reason, new AppError('INVALID_TOKEN'));
    const ts = Date.parse(headers.ts);
    const now = this.#now();
    if (Number.isNaN(ts) || !/^\d{4}-\d{2}-\d{2}T/.test(headers.ts)) return refuse('auth-ts is not an ISO 8601 time');
    if (Math.abs(now - ts) > TOKEN_MAX_AGE_MS) return refuse('auth-ts is more than 2 seconds from the server clock');
    const replayKey = `${username.toLowerCase()}\0${headers.salt}\0${headers.ts}`;
    for (const [key, expiry] of this.#tokenSaltsSeen) if (expiry <= now) this.#tokenSaltsSeen.delete(key);
    if (this.#tokenSaltsSeen.has(replayKey)) return refuse('token already used');
    const user = await this.#deps.accounts.findByEmail(username);
    const credential = user?.legacyToken;
    if (user === null || credential === undefined || !legacyTokenMatches(credential, headers.salt, headers.ts, headers.token)) {
      return refuse('token does not match');
    }
    // Within its 2-second life a token could be replayed; remembering it closes that gap.
    this.#tokenSaltsSeen.set(replayKey, now + 2 * TOKEN_MAX_AGE_MS);
    // Every request carries a new token; auditing the first per user and address every few minutes is the "login".
    const auditKey = `${user._id}\0${address}`;
    if ((this.#tokenAudited.get(auditKey) ?? 0) > now) return user;
    if (this.#tokenAudited.size >= BASIC_CACHE_MAX) this.#tokenAudited.clear();
    this.#tokenAudited.set(auditKey, now + BASIC_CACHE_MS);
    return this.#succeed(user, address, 'token');
  }

  /**
   * The session of a cookie, or null when it is unknown or expired. With `staleIfStoreDown`, a store that fails is answered with what this
   * instance found for the same session within the last few minutes, if anything.
   */
  async session(token: string, options: { staleIfStoreDown?: boolean } = {}): Promise<{ user: UserRecord; session: SessionRecord } | null> {
    const key = createHash('sha256').update(token).digest('hex');
    let found: { user: UserRecord; session: SessionRecord } | null;
    try {
      found = await this.#checkSession(token);
    } catch (err) {
      const seen = options.staleIfStoreDown === true && err instanceof StoreError ? this.#sessionsSeen.get(key) : undefined;
      if (seen === undefined || seen.at + SESSION_SEEN_MS < this.#now()) throw err;
      return seen.found;
    }
    if (found === null) this.#sessionsSeen.delete(key);
    else {
      if (this.#sessionsSeen.size >= BASIC_CACHE_MAX) this.#sessionsSeen.clear();
      this.#sessionsSeen.set(key, { found, at: this.#now() });
    }
    return found;
  }

  /** A signed-out session: never answered from what was seen before, even while the store is down. */
  forget(token: string): void {
    this.#sessionsSeen.delete(createHash('sha256').update(token).digest('hex'));
  }

  async #checkSession(token: string): Promise<{ user: UserRecord; session: SessionRecord } | null> {
    const session = await this.#deps.sessions.resolve(token);
    if (session === null) return null;
    const user = await this.#deps.accounts.findById(session.userId);
    if (user === null) {
      await this.#deps.sessions.destroy(token);
      return null;
    }
    return { user, session };
  }

  /** Records a request that came without credentials (at most once a minute per address, against log floods). */
  async anonymous(address: string, reason: string): Promise<void> {
    const now = this.#now();
    if ((this.#anonymousAudited.get(address) ?? 0) > now) return;
    if (this.#anonymousAudited.size >= BASIC_CACHE_MAX) this.#anonymousAudited.clear();
    this.#anonymousAudited.set(address, now + 60_000);
    await this.#deps.audit.login({ username: '', address, method: 'none', success: false, reason });
  }
}
