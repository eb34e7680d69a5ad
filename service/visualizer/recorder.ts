/**
 * The visualizer's events (`GET /events/:receivedTime`), built from the live event bus into a bounded ring in memory:
 * events older than an hour are dropped (OpenHIM's collection expires them after an hour too), and beyond a count the
 * oldest go first, so memory stays bounded however busy Junction is. Nothing is written to disk: the visualizer only
 * ever asks for the last few seconds.
 */
import type { VisualizerEvent } from '../contracts/visualizer.js';
import { endEvents, startEvent } from '../domain/visualizer-events.js';
import type { EventChannel } from '../domain/visualizer-events.js';
import type { CompletionDetail, LiveEvents, TransactionEvent } from '../events/live.js';

/** How long an event is kept, as OpenHIM's TTL. */
export const EVENT_TTL_MS = 60 * 60_000;
/** Most events kept (about 10 MB); at 200 transactions a second with two routes, a little over a minute's worth. */
export const MAX_EVENTS = 50_000;

export interface VisualizerRecorderOptions {
  events: LiveEvents;
  /** The channel of an event (its name and routes); null when it was deleted meanwhile. */
  channel: (id: string) => Promise<EventChannel | null>;
  now?: () => number;
  ttlMs?: number;
  maxEvents?: number;
  /** Told when a channel lookup fails, so the failure is logged rather than lost. */
  onError?: (err: unknown) => void;
}

interface Stored {
  created: number;
  event: VisualizerEvent;
}

/** Records the visualizer's events while attached to the bus. */
export class VisualizerRecorder {
  readonly #options: VisualizerRecorderOptions;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #max: number;
  // An array used as a queue: appended at the end; `#head` is the first kept, and the dropped front is cut off in one
  // copy once it is half the array, so dropping costs no more than adding.
  #ring: Stored[] = [];
  #head = 0;
  // Recording waits on a channel lookup; these are the ones still waiting.
  readonly #pending = new Set<Promise<void>>();
  readonly #started = (event: TransactionEvent): void => this.#track(this.#start(event));
  readonly #completed = (event: TransactionEvent, detail: CompletionDetail): void => this.#track(this.#end(event, detail));

  constructor(options: VisualizerRecorderOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? EVENT_TTL_MS;
    this.#max = options.maxEvents ?? MAX_EVENTS;
  }

  /** Starts recording. */
  attach(): this {
    this.#options.events.on('transaction.started', this.#started);
    this.#options.events.on('transaction.completed', this.#completed);
    return this;
  }

  /** Stops recording (the events kept stay readable). */
  detach(): void {
    this.#options.events.off('transaction.started', this.#started);
    this.#options.events.off('transaction.completed', this.#completed);
  }

  /** Events recorded at or after `receivedTime` (epoch ms), by normalizedTimestamp ascending. */
  since(receivedTime: number): VisualizerEvent[] {
    this.#expire();
    const found: VisualizerEvent[] = [];
    // Recorded in order of creation, so the scan runs from the newest back to the first one too old.
    for (let i = this.#ring.length - 1; i >= this.#head; i--) {
      const stored = this.#ring[i]!;
      if (stored.created < receivedTime) break;
      found.push(stored.event);
    }
    return found.sort((a, b) => a.normalizedTimestamp - b.normalizedTimestamp);
  }

  /** Resolves once every event announced so far is recorded (for tests and an orderly stop). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** How many events are kept. */
  get size(): number {
    return this.#ring.length - this.#head;
  }

  #track(recording: Promise<void>): void {
    this.#pending.add(recording);
    void recording.finally(() => this.#pending.delete(recording));
  }

  async #start(event: TransactionEvent): Promise<void> {
    const at = this.#now();
    const channel = await this.#lookup(event.channelID);
    if (channel === null) return;
    this.#add([startEvent(event.transactionId, event.channelID, channel.name, at)]);
  }

  async #end(event: TransactionEvent, detail: CompletionDetail): Promise<void> {
    const now = this.#now();
    const channel = await this.#lookup(event.channelID);
    if (channel === null) return;
    // Without the record (not expected), the channel's end is still drawn, from what the bus said.
    const transaction = detail.transaction ?? {
      _id: event.transactionId,
      channelID: event.channelID,
      request: { timestamp: new Date(now) },
      ...(event.responseStatus === undefined ? {} : { response: { status: event.responseStatus, timestamp: new Date(now) } }),
      routes: [],
      orchestrations: [],
      autoRetryAttempt: 0,
    };
    this.#add(endEvents(transaction, channel));
  }

  async #lookup(id: string): Promise<EventChannel | null> {
    try {
      return await this.#options.channel(id);
    } catch (err) {
      this.#options.onError?.(err);
      return null;
    }
  }

  #add(events: readonly VisualizerEvent[]): void {
    const created = this.#now();
    for (const event of events) this.#ring.push({ created, event });
    this.#expire();
  }

  /** Drops events past their time, then the oldest beyond the cap. */
  #expire(): void {
    const oldest = this.#now() - this.#ttlMs;
    const ring = this.#ring;
    this.#head = Math.max(this.#head, ring.length - this.#max);
    while (this.#head < ring.length && ring[this.#head]!.created < oldest) this.#head += 1;
    if (this.#head > 0 && this.#head * 2 >= ring.length) {
      this.#ring = ring.slice(this.#head);
      this.#head = 0;
    }
  }
}
