/**
 * Audits clients refused on a transaction port (node authentication) in summary, as failed logins are
 * (failed-logins.ts): the first refusal from an address is recorded at once and opens a window; the refusals that
 * follow from that address within the window are counted, and one summary event is written when it ends. A client
 * retrying in a loop, or a scan, costs one audit write per window instead of one per request.
 */
import type { AuditRecorder } from './recorder.js';

export interface NodeRefusalAttempt {
  address: string;
  /** The channel's name. */
  channel: string;
  reason: string;
}

interface OpenWindow {
  address: string;
  endsAt: number;
  channels: Set<string>;
  reason: string;
  /** Refusals counted after the first (which was recorded by itself). */
  count: number;
  from: number;
  to: number;
}

export interface RefusedNodeAuditOptions {
  audit: AuditRecorder;
  windowSeconds: number;
  now?: () => number;
  /** Most windows kept open; past it the oldest is written early, so many addresses cannot grow memory. */
  maxOpenWindows?: number;
}

// The channels named in one summary; a scan across every channel is still one line of bounded length.
const MAX_CHANNELS = 20;

export class RefusedNodeAudit {
  readonly #audit: AuditRecorder;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #maxOpen: number;
  // In order of opening; windows all last as long, so the ones that have ended are at the front.
  readonly #open = new Map<string, OpenWindow>();

  constructor(options: RefusedNodeAuditOptions) {
    this.#audit = options.audit;
    this.#windowMs = options.windowSeconds * 1000;
    this.#now = options.now ?? Date.now;
    this.#maxOpen = options.maxOpenWindows ?? 10_000;
  }

  /** A client refused on a channel: recorded when it is the first from its address in a window, else counted. */
  async refused(attempt: NodeRefusalAttempt): Promise<void> {
    const now = this.#now();
    await this.flushEnded();
    const window = this.#open.get(attempt.address);
    if (window !== undefined) {
      window.count += 1;
      if (window.count === 1) window.from = now;
      window.to = now;
      window.reason = attempt.reason;
      if (window.channels.size < MAX_CHANNELS) window.channels.add(attempt.channel);
      return;
    }
    this.#open.set(attempt.address, { address: attempt.address, endsAt: now + this.#windowMs, channels: new Set(), reason: attempt.reason, count: 0, from: now, to: now });
    if (this.#open.size > this.#maxOpen) {
      const oldest = this.#open.values().next().value;
      if (oldest !== undefined) {
        this.#open.delete(oldest.address);
        await this.#write(oldest);
      }
    }
    await this.#audit.nodeAuthentication({ address: attempt.address, channels: [attempt.channel], reason: attempt.reason, attempts: 1, from: new Date(now), to: new Date(now) });
  }

  /** Writes the summaries of windows that have ended. */
  async flushEnded(): Promise<void> {
    const now = this.#now();
    for (const [address, window] of this.#open) {
      if (window.endsAt > now) break;
      this.#open.delete(address);
      await this.#write(window);
    }
  }

  /** Writes every open summary now (at stop, so nothing counted is lost). */
  async flushAll(): Promise<void> {
    const windows = [...this.#open.values()];
    this.#open.clear();
    for (const window of windows) await this.#write(window);
  }

  async #write(window: OpenWindow): Promise<void> {
    if (window.count === 0) return;
    await this.#audit.nodeAuthentication({
      address: window.address,
      channels: [...window.channels],
      reason: window.reason,
      attempts: window.count,
      from: new Date(window.from),
      to: new Date(window.to),
    });
  }
}
