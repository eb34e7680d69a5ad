/**
 * The Prometheus exposition: one prom-client Registry per Junction (never the library's global one, so several
 * instances in one process keep their own counts), the process metrics prefixed `openhim_`, and OpenHIM's two
 * transaction metrics, counted as transactions complete (`LiveEvents`' `transaction.completed`).
 *
 * OpenHIM observes milliseconds in a histogram whose help says seconds, so nearly every request lands in +Inf; here
 * the histogram holds seconds, with buckets from 5 ms to a minute (channel timeouts are of that order).
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { OpenMetricsContentType } from 'prom-client';
import type { CompletionDetail, LiveEvents, TransactionEvent } from '../events/live.js';

/** The labels of both transaction metrics, OpenHIM's set. */
const LABELS = ['channel', 'status', 'code', 'method', 'client'] as const;

/** Histogram buckets in seconds. */
export const DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

// Distinct label sets are few (channels × statuses × codes × methods × clients); past this many the cache starts over
// rather than grow without bound when some label takes many values.
const MAX_CACHED_LABEL_SETS = 10_000;

interface LabelChildren {
  count: { inc(): void };
  duration: { observe(value: number): void };
}

export class PrometheusMetrics {
  readonly registry = new Registry<OpenMetricsContentType>();
  readonly #transactions: Counter<(typeof LABELS)[number]>;
  readonly #duration: Histogram<(typeof LABELS)[number]>;
  readonly #children = new Map<string, LabelChildren>();
  #detach: (() => void) | undefined;

  constructor() {
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    collectDefaultMetrics({ register: this.registry, prefix: 'openhim_' });
    this.#transactions = new Counter({ name: 'openhim_transactions_total', help: 'Transactions completed', labelNames: LABELS, registers: [this.registry] });
    this.#duration = new Histogram({
      name: 'openhim_request_duration',
      help: 'Transaction response time (response timestamp minus request timestamp) in seconds',
      labelNames: LABELS,
      buckets: DURATION_BUCKETS_SECONDS,
      registers: [this.registry],
    });
  }

  /** The content type of `exposition()`: OpenMetrics text 1.0.0. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Counts every completion announced on `events` from now on. */
  attach(events: LiveEvents): void {
    this.#detach?.();
    const listener = (event: TransactionEvent, detail: CompletionDetail): void => this.completed(event, detail);
    events.on('transaction.completed', listener);
    this.#detach = () => events.off('transaction.completed', listener);
  }

  /** Stops counting. */
  detach(): void {
    this.#detach?.();
    this.#detach = undefined;
  }

  /**
   * One completed transaction: the counter, and the histogram when it had a response (a transaction that got none
   * has no response time, as in the JSON metrics). The label children of each label set are kept, so a completion
   * costs one short key and a map lookup rather than prom-client's label hashing.
   */
  completed(event: TransactionEvent, detail: CompletionDetail): void {
    const code = event.responseStatus === undefined ? '' : String(event.responseStatus);
    const client = detail.clientName ?? '';
    const key = `${event.channelID}\u0000${detail.channelName}\u0000${event.status}\u0000${code}\u0000${event.method}\u0000${client}`;
    let children = this.#children.get(key);
    if (children === undefined) {
      const labels = { channel: detail.channelName, status: event.status, code, method: event.method, client };
      children = { count: this.#transactions.labels(labels), duration: this.#duration.labels(labels) };
      if (this.#children.size >= MAX_CACHED_LABEL_SETS) this.#children.clear();
      this.#children.set(key, children);
    }
    children.count.inc();
    if (detail.responseTimeMs !== undefined) children.duration.observe(detail.responseTimeMs / 1000);
  }

  /** The exposition text, in `contentType`. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * True when a `GET /metrics` asks for the exposition rather than the JSON totals: its Accept names OpenMetrics, as
 * Prometheus's default scrape Accept does (and OpenHIM's rule). A plain `text/plain` is not enough: browsers and
 * OpenHIM's console send it too when they want JSON.
 */
export function wantsExposition(accept: string | string[] | undefined): boolean {
  const text = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  return text.toLowerCase().includes('application/openmetrics-text');
}
