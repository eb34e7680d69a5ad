/** Login sessions: random cookie values whose sha256 is stored with an idle expiry, so they survive a restart. */
import { createHash, randomBytes } from 'node:crypto';
import type { Collection } from '../storage/store.js';
import type { SessionRecord } from '../storage/records.js';

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// Refreshing the expiry at most once a minute keeps a busy console from writing on every request.
const TOUCH_INTERVAL_MS = 60_000;

export class Sessions {
  readonly #sessions: Collection<SessionRecord>;
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(options: { sessions: Collection<SessionRecord>; idleMinutes: number; now?: () => number }) {
    this.#sessions = options.sessions;
    this.#idleMs = options.idleMinutes * 60_000;
    this.#now = options.now ?? Date.now;
  }

  get maxAgeSeconds(): number {
    return Math.floor(this.#idleMs / 1000);
  }

  /** Starts a session and returns the cookie value (only its digest is stored). */
  async create(userId: string, address: string, userAgent?: string): Promise<{ token: string; session: SessionRecord }> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date(this.#now());
    const session = await this.#sessions.insert({
      tokenHash: digest(token),
      userId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.#idleMs),
      address,
      ...(userAgent === undefined ? {} : { userAgent: userAgent.slice(0, 256) }),
    });
    return { token, session };
  }

  /** The live session for a cookie value, extending its idle expiry; null when unknown or expired. */
  async resolve(token: string): Promise<SessionRecord | null> {
    if (token.length === 0 || token.length > 128) return null;
    const session = await this.#sessions.findOne({ tokenHash: digest(token) });
    const now = this.#now();
    if (session === null) return null;
    if (session.expiresAt.getTime() <= now) {
      await this.#sessions.removeById(session._id);
      return null;
    }
    if (now - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
      const touched = await this.#sessions.updateById(session._id, {
        set: { lastSeenAt: new Date(now), expiresAt: new Date(now + this.#idleMs) },
      });
      return touched;
    }
    return session;
  }

  /** The live session for a cookie value without extending it (for checks that are not user activity); null when unknown or expired. */
  async peek(token: string): Promise<SessionRecord | null> {
    if (token.length === 0 || token.length > 128) return null;
    const session = await this.#sessions.findOne({ tokenHash: digest(token) });
    return session === null || session.expiresAt.getTime() <= this.#now() ? null : session;
  }

  /** Ends the session behind a cookie value. */
  async destroy(token: string): Promise<void> {
    await this.#sessions.removeMany({ tokenHash: digest(token) });
  }

  /** Ends every session of a user except one (used after a password change and when a user is deleted). */
  async destroyForUser(userId: string, exceptSessionId?: string): Promise<number> {
    const filter = exceptSessionId === undefined ? { userId } : { userId, _id: { $ne: exceptSessionId } };
    return this.#sessions.removeMany(filter);
  }

  /** Deletes expired sessions; run at start and periodically. */
  purgeExpired(): Promise<number> {
    return this.#sessions.removeMany({ expiresAt: { $lte: new Date(this.#now()) } });
  }
}
