/**
 * The visualizer's events (`GET /events/:receivedTime`), built from the live event bus into a bounded ring in memory:
 * events older than an hour are dropped (OpenHIM's collection expires them after an hour too), and beyond a count the
 * oldest go first, so memory stays bounded however busy Junction is. Nothing is written to disk: the visualizer only
 * ever asks for the last few seconds.
 */
import type { VisualizerEvent } from '../contracts/visualizer.js';
import { endEvents, startEvent } from '../domain/transactions/visualizer-events.js';
import type { EventChannel, FinishedExchange, FinishedTransaction } from '../domain/transactions/visualizer-events.js';
import type { CompletionDetail, LiveEvents, TransactionEvent } from '../events/live.js';

/** How long an event is kept, as OpenHIM's TTL. */
export const EVENT_TTL_MS = 60 * 60_000;
/** Most events kept (about 10 MB); at 200 transactions a second with two routes, a little over a minute's worth. */
export const MAX_EVENTS = 50_000;

export interface VisualizerRecorderOptions {
  events: LiveEvents;
  /**
   * The channel of an event (its name and routes); null when it was deleted meanwhile. Answered synchronously when the
   * channel is at hand (the pipeline's in-memory list), so a busy proxy records without a promise per event.
   */
  channel: (id: string) => EventChannel | null | Promise<EventChannel | null>;
  now?: () => number;
  ttlMs?: number;
  maxEvents?: number;
  /** Told when a channel lookup fails, so the failure is logged rather than lost. */
  onError?: (err: unknown) => void;
}

/**
 * What is kept per transaction: the facts its events are drawn from, not the events. The events are built when asked
 * for (the visualizer asks for a few seconds' worth every few seconds), so recording allocates one small entry per
 * start and per end instead of four or more event objects, each kept alive for up to the cap. Measured at full speed on
 * the proxy, recording the events themselves cost about a sixth of Junction's CPU per request, most of it the garbage
 * collector copying and promoting those long-lived objects (docs/BENCHMARKS.md).
 */
type Entry =
  | { created: number; events: 1; start: { transactionId: string; channelID: string; channelName: string; at: number } }
  | { created: number; events: number; end: { transaction: FinishedTransaction; channel: EventChannel } };

const NO_EXCHANGES: readonly FinishedExchange[] = [];

/** The part of an exchange its events need, so an entry holds no request, response or headers. */
function exchangeFacts(exchanges: readonly FinishedExchange[]): readonly FinishedExchange[] {
  if (exchanges.length === 0) return NO_EXCHANGES;
  return exchanges.map((exchange) => ({
    name: exchange.name,
    request: { timestamp: exchange.request.timestamp },
    ...(exchange.response === undefined ? {} : { response: { status: exchange.response.status, timestamp: exchange.response.timestamp } }),
  }));
}

/** The part of a finished transaction its end events need. */
function transactionFacts(tx: FinishedTransaction): FinishedTransaction {
  return {
    _id: tx._id,
    channelID: tx.channelID,
    request: { timestamp: tx.request.timestamp },
    ...(tx.response === undefined ? {} : { response: { status: tx.response.status, timestamp: tx.response.timestamp } }),
    routes: exchangeFacts(tx.routes),
    orchestrations: exchangeFacts(tx.orchestrations),
    autoRetryAttempt: tx.autoRetryAttempt,
  };
}

/** How many events `endEvents` draws for a transaction on a channel. */
function endEventCount(tx: FinishedTransaction, channel: EventChannel): number {
  return (channel.routes.length > 0 ? 2 : 0) + 2 * (tx.routes.length + tx.orchestrations.length) + 1;
}

/** Records the visualizer's events while attached to the bus. */
export class VisualizerRecorder {
  readonly #options: VisualizerRecorderOptions;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #max: number;
  // An array used as a queue: appended at the end; `#head` is the first kept, and the dropped front is cut off in one
  // copy once it is half the array, so dropping costs no more than adding.
  #ring: Entry[] = [];
  #head = 0;
  // Events the kept entries stand for (the cap counts events, as the visualizer sees them).
  #events = 0;
  // Recording waits on a channel lookup that is not at hand; these are the ones still waiting.
  readonly #pending = new Set<Promise<void>>();
  readonly #started = (event: TransactionEvent): void => this.#start(event);
  readonly #completed = (event: TransactionEvent, detail: CompletionDetail): void => this.#end(event, detail);

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
      const entry = this.#ring[i]!;
      if (entry.created < receivedTime) break;
      if ('start' in entry) found.push(startEvent(entry.start.transactionId, entry.start.channelID, entry.start.channelName, entry.start.at));
      else for (const event of endEvents(entry.end.transaction, entry.end.channel)) found.push(event);
    }
    return found.sort((a, b) => a.normalizedTimestamp - b.normalizedTimestamp);
  }

  /** Resolves once every event announced so far is recorded (for tests and an orderly stop). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** How many events are kept. */
  get size(): number {
    return this.#events;
  }

  #start(event: TransactionEvent): void {
    const at = this.#now();
    this.#withChannel(event.channelID, (channel) => {
      this.#add({ created: this.#now(), events: 1, start: { transactionId: event.transactionId, channelID: event.channelID, channelName: channel.name, at } });
    });
  }

  #end(event: TransactionEvent, detail: CompletionDetail): void {
    const now = this.#now();
    // Without the record (not expected), the channel's end is still drawn, from what the bus said.
    const transaction =
      detail.transaction === undefined
        ? {
            _id: event.transactionId,
            channelID: event.channelID,
            request: { timestamp: new Date(now) },
            ...(event.responseStatus === undefined ? {} : { response: { status: event.responseStatus, timestamp: new Date(now) } }),
            routes: NO_EXCHANGES,
            orchestrations: NO_EXCHANGES,
            autoRetryAttempt: 0,
          }
        : transactionFacts(detail.transaction);
    this.#withChannel(event.channelID, (channel) => {
      this.#add({ created: this.#now(), events: endEventCount(transaction, channel), end: { transaction, channel } });
    });
  }

  /** Runs `record` with the channel: at once when it is at hand, otherwise once looked up; not at all when it is gone. */
  #withChannel(id: string, record: (channel: EventChannel) => void): void {
    let found: EventChannel | null | Promise<EventChannel | null>;
    try {
      found = this.#options.channel(id);
    } catch (err) {
      this.#options.onError?.(err);
      return;
    }
    if (!(found instanceof Promise)) {
      if (found !== null) record(found);
      return;
    }
    const recording = found.then(
      (channel) => {
        if (channel !== null) record(channel);
      },
      (err: unknown) => this.#options.onError?.(err),
    );
    this.#pending.add(recording);
    void recording.finally(() => this.#pending.delete(recording));
  }

  #add(entry: Entry): void {
    this.#ring.push(entry);
    this.#events += entry.events;
    this.#expire();
  }

  /** Drops entries past their time, then the oldest while the events kept exceed the cap. */
  #expire(): void {
    const oldest = this.#now() - this.#ttlMs;
    const ring = this.#ring;
    while (this.#head < ring.length && (this.#events > this.#max || ring[this.#head]!.created < oldest)) {
      this.#events -= ring[this.#head]!.events;
      this.#head += 1;
    }
    if (this.#head > 0 && this.#head * 2 >= ring.length) {
      this.#ring = ring.slice(this.#head);
      this.#head = 0;
    }
  }
}
