/**
 * Audits failed authentications in summary, so a flood of failures costs a bounded number of audit writes: the first
 * failure of an identity from an address is recorded by itself, as always, and opens a window; the failures and
 * throttled refusals that follow within the window are counted, and one summary event is written when it ends.
 */
import { createHash } from 'node:crypto';
import type { AuditRecorder } from './recorder.js';
import type { LoginMethod } from './events.js';

export interface FailedAttempt {
  /** The identity the caller claimed; undefined when the credentials named none. */
  claimed: string | undefined;
  address: string;
  method: LoginMethod;
}

interface OpenWindow {
  username: string;
  address: string;
  endsAt: number;
  methods: Set<LoginMethod>;
  failed: number;
  refused: number;
  from: number;
  to: number;
}

export interface FailedLoginAuditOptions {
  audit: AuditRecorder;
  windowSeconds: number;
  now?: () => number;
  /** Most windows kept open; past it the oldest is written early (an attacker spraying identities cannot grow memory). */
  maxOpenWindows?: number;
}

// Claimed identities come from request headers; the audit keeps a readable prefix and the window key a digest.
const MAX_IDENTITY_CHARS = 200;

function shown(claimed: string | undefined): string {
  if (claimed === undefined) return '';
  return claimed.length <= MAX_IDENTITY_CHARS ? claimed : `${claimed.slice(0, MAX_IDENTITY_CHARS)}…`;
}

function keyOf(username: string, address: string, claimed: string | undefined): string {
  const identity = claimed !== undefined && claimed.length > MAX_IDENTITY_CHARS ? createHash('sha256').update(claimed).digest('base64') : username;
  return `${identity}\0${address}`;
}

export class FailedLoginAudit {
  readonly #audit: AuditRecorder;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #maxOpen: number;
  // In order of opening; windows all last as long, so the ones that have ended are at the front.
  readonly #open = new Map<string, OpenWindow>();

  constructor(options: FailedLoginAuditOptions) {
    this.#audit = options.audit;
    this.#windowMs = options.windowSeconds * 1000;
    this.#now = options.now ?? Date.now;
    this.#maxOpen = options.maxOpenWindows ?? 10_000;
  }

  /** An attempt whose credentials were checked and found wrong. */
  async failed(attempt: FailedAttempt & { reason: string }): Promise<void> {
    const now = this.#now();
    await this.flushEnded();
    const username = shown(attempt.claimed);
    const key = keyOf(username, attempt.address, attempt.claimed);
    const window = this.#open.get(key);
    if (window !== undefined) {
      count(window, 'failed', attempt.method, now);
      return;
    }
    await this.#openWindow(key, username, attempt.address, now);
    await this.#audit.login({ username, address: attempt.address, method: attempt.method, success: false, reason: attempt.reason, at: new Date(now) });
  }

  /**
   * An attempt refused by the throttle without being checked: never written by itself. It is counted in the window of
   * its identity and address, or, when that has none (a new identity sprayed from a throttled address), in the
   * address's own window, so spraying identities cannot open one window (and one write) per attempt.
   */
  async refused(attempt: FailedAttempt): Promise<void> {
    const now = this.#now();
    await this.flushEnded();
    const username = shown(attempt.claimed);
    let window = this.#open.get(keyOf(username, attempt.address, attempt.claimed));
    if (window === undefined) {
      const key = keyOf('', attempt.address, undefined);
      window = this.#open.get(key) ?? (await this.#openWindow(key, '', attempt.address, now));
    }
    count(window, 'refused', attempt.method, now);
  }

  /** Writes the summaries of windows that have ended. */
  async flushEnded(): Promise<void> {
    const now = this.#now();
    for (const [key, window] of this.#open) {
      if (window.endsAt > now) break;
      this.#open.delete(key);
      await this.#write(window);
    }
  }

  /** Writes every open summary now (at stop, so nothing counted is lost). */
  async flushAll(): Promise<void> {
    const windows = [...this.#open.values()];
    this.#open.clear();
    for (const window of windows) await this.#write(window);
  }

  async #openWindow(key: string, username: string, address: string, now: number): Promise<OpenWindow> {
    const window: OpenWindow = { username, address, endsAt: now + this.#windowMs, methods: new Set(), failed: 0, refused: 0, from: now, to: now };
    this.#open.set(key, window);
    if (this.#open.size > this.#maxOpen) {
      const [oldestKey, oldest] = this.#open.entries().next().value ?? [];
      if (oldestKey !== undefined && oldest !== undefined) {
        this.#open.delete(oldestKey);
        await this.#write(oldest);
      }
    }
    return window;
  }

  async #write(window: OpenWindow): Promise<void> {
    if (window.failed + window.refused === 0) return;
    await this.#audit.failedLoginSummary({
      username: window.username,
      address: window.address,
      methods: [...window.methods],
      failed: window.failed,
      refused: window.refused,
      from: new Date(window.from),
      to: new Date(window.to),
    });
  }
}

function count(window: OpenWindow, kind: 'failed' | 'refused', method: LoginMethod, now: number): void {
  if (window.failed + window.refused === 0) window.from = now;
  window[kind] += 1;
  window.to = now;
  window.methods.add(method);
}
