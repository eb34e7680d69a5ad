/**
 * The live feed across instances: transactions started and completed on this instance are sent to the others (NOTIFY,
 * batched per event-loop turn), and theirs are emitted on this instance's `LiveEvents`, so the console's live feed and
 * the visualizer on any instance show every instance's traffic. Each batch carries its origin, and an event received
 * from another instance is never sent on again, so nothing loops. Only the feed's fields travel (ids, status, method,
 * path, response status) and the channel name; the Prometheus counters skip relayed completions, since every
 * instance is scraped for its own. Events sent while a listening connection is away are not replayed: the feed is a
 * live view, and the transaction log holds everything.
 */
import type { Logger } from 'pino';
import type { LiveTransaction } from '../contracts/live-feed.js';
import { TRANSACTION_STATUSES } from '../domain/transactions/transaction-status.js';
import type { CompletionDetail, LiveEvents, TransactionEvent } from '../events/live.js';
import { MAX_NOTICE_BYTES } from './notices.js';
import type { Notices } from './notices.js';

// A path longer than this is cut in the relayed event: the feed shows the start of it, and one event must fit a payload.
const MAX_PATH_CHARS = 1_024;

type Entry = ['s' | 'c', LiveTransaction, string | null];

export interface LiveRelayOptions {
  events: LiveEvents;
  notices: Notices;
  /** This instance's id. */
  origin: string;
  logger: Logger;
}

export class LiveRelay {
  readonly #options: LiveRelayOptions;
  /** Events this relay emitted itself, which must not be sent back out. */
  readonly #relayed = new WeakSet<TransactionEvent>();
  #queue: Entry[] = [];
  #flushPlanned = false;
  #sending: Promise<void> = Promise.resolve();
  #detach: (() => void) | null = null;

  constructor(options: LiveRelayOptions) {
    this.#options = options;
  }

  /** Starts sending this instance's events and emitting the others'. */
  start(): void {
    if (this.#detach !== null) return;
    const { events, notices } = this.#options;
    const started = (event: TransactionEvent): void => {
      if (!this.#relayed.has(event)) this.#enqueue(['s', feedFields(event), null]);
    };
    const completed = (event: TransactionEvent, detail: CompletionDetail): void => {
      if (detail.relayedFrom === undefined && !this.#relayed.has(event)) this.#enqueue(['c', feedFields(event), detail.channelName]);
    };
    events.on('transaction.started', started);
    events.on('transaction.completed', completed);
    const stopListening = notices.on('live', (payload) => this.#receive(payload));
    this.#detach = () => {
      events.off('transaction.started', started);
      events.off('transaction.completed', completed);
      stopListening();
    };
  }

  /** Stops relaying; resolves once the events queued so far have been sent. */
  async stop(): Promise<void> {
    this.#detach?.();
    this.#detach = null;
    this.#flush();
    await this.#sending;
  }

  /** Resolves once the events queued so far have been sent (or have failed and been logged). */
  async settled(): Promise<void> {
    this.#flush();
    await this.#sending;
  }

  #enqueue(entry: Entry): void {
    this.#queue.push(entry);
    if (this.#flushPlanned) return;
    this.#flushPlanned = true;
    // One NOTIFY carries every event of a turn: under load, one round trip for many transactions.
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushPlanned = false;
    if (this.#queue.length === 0) return;
    const payloads = batches(this.#options.origin, this.#queue);
    this.#queue = [];
    this.#sending = this.#sending.then(async () => {
      for (const payload of payloads) {
        try {
          await this.#options.notices.send('live', payload);
        } catch (err) {
          this.#options.logger.warn({ err }, 'live feed events could not be sent to the other instances');
        }
      }
    });
  }

  #receive(payload: string): void {
    const batch = decodeBatch(payload);
    if (batch === null || batch.origin === this.#options.origin) return;
    const { events } = this.#options;
    for (const [type, event, channelName] of batch.entries) {
      this.#relayed.add(event);
      if (type === 's') events.emit('transaction.started', event);
      else events.completed(event, { channelName: channelName ?? '', relayedFrom: batch.origin });
    }
  }
}

/** Only the fields the feed shows, whatever else the emitter put on the event. */
function feedFields(event: TransactionEvent): LiveTransaction {
  const path = event.path.length > MAX_PATH_CHARS ? event.path.slice(0, MAX_PATH_CHARS) : event.path;
  const fields: LiveTransaction = { transactionId: event.transactionId, channelID: event.channelID, status: event.status, method: event.method, path };
  if (event.responseStatus !== undefined) fields.responseStatus = event.responseStatus;
  return fields;
}

/** The entries as payloads of at most MAX_NOTICE_BYTES each. */
function batches(origin: string, entries: readonly Entry[]): string[] {
  const payloads: string[] = [];
  const envelope = (parts: string[]): string => `{"o":${JSON.stringify(origin)},"e":[${parts.join(',')}]}`;
  let parts: string[] = [];
  let bytes = Buffer.byteLength(envelope([]));
  for (const entry of entries) {
    const text = JSON.stringify(entry);
    const size = Buffer.byteLength(text) + 1;
    if (parts.length > 0 && bytes + size > MAX_NOTICE_BYTES) {
      payloads.push(envelope(parts));
      parts = [];
      bytes = Buffer.byteLength(envelope([]));
    }
    parts.push(text);
    bytes += size;
  }
  if (parts.length > 0) payloads.push(envelope(parts));
  return payloads;
}

function decodeBatch(payload: string): { origin: string; entries: Entry[] } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return null;
  }
  const { o, e } = (parsed ?? {}) as { o?: unknown; e?: unknown };
  if (typeof o !== 'string' || !Array.isArray(e)) return null;
  const entries: Entry[] = [];
  for (const item of e as unknown[]) {
    if (!Array.isArray(item)) continue;
    const [type, event, channelName] = item as unknown[];
    if ((type !== 's' && type !== 'c') || !isFeedEvent(event)) continue;
    entries.push([type, feedFields(event), typeof channelName === 'string' ? channelName : null]);
  }
  return { origin: o, entries };
}

function isFeedEvent(value: unknown): value is LiveTransaction {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.transactionId === 'string' && typeof v.channelID === 'string' && typeof v.method === 'string' && typeof v.path === 'string' &&
    (TRANSACTION_STATUSES as readonly unknown[]).includes(v.status) && (v.responseStatus === undefined || typeof v.responseStatus === 'number');
}
