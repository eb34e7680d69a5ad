/**
 * The Prometheus exposition: one prom-client Registry per Junction (never the library's global one, so several
 * instances in one process keep their own counts), the process metrics prefixed `openhim_`, and OpenHIM's two
 * transaction metrics, counted as transactions complete (`LiveEvents`' `transaction.completed`).
 *
 * OpenHIM observes milliseconds in a histogram whose help says seconds, so nearly every request lands in +Inf; here
 * the histogram holds seconds, with buckets from 5 ms to a minute (channel timeouts are of that order).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { OpenMetricsContentType } from 'prom-client';
import type { AboutAudits } from '../contracts/api.js';
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
    // Each instance is scraped on its own: another instance's completions are counted there.
    if (detail.relayedFrom !== undefined) return;
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

  /**
   * Exposes the audit repository's and audit sender's counts (`junction_audit_*`), read from `counts` at each scrape
   * rather than counted twice. Counters restart at zero with the process, as Prometheus expects of a counter.
   */
  watchAudits(counts: () => AboutAudits): void {
    const registers = [this.registry];
    // Reading them is a few object copies, so each metric reads its own.
    const read = counts;
    new Counter({
      name: 'junction_audit_messages',
      help: 'Audit messages the repository received, by what became of them (stored includes malformed ones, kept raw)',
      labelNames: ['outcome'],
      registers,
      collect() {
        const intake = read().intake;
        this.reset();
        if (intake === undefined) return;
        for (const outcome of ['received', 'stored', 'malformed', 'failed', 'dropped'] as const) this.inc({ outcome }, intake[outcome]);
      },
    });
    new Gauge({
      name: 'junction_audit_writes_in_flight',
      help: 'Received audit messages not yet stored',
      registers,
      collect() {
        this.set(read().intake?.inFlight ?? 0);
      },
    });
    new Gauge({
      name: 'junction_audit_connections',
      help: 'TCP and TLS connections open to the audit repository listeners',
      labelNames: ['transport', 'port'],
      registers,
      collect() {
        this.reset();
        for (const l of read().listeners) this.set({ transport: l.transport, port: String(l.port) }, l.connections);
      },
    });
    new Counter({
      name: 'junction_audit_listener_events',
      help: 'Audit listener events: messages received, streams closed for bad framing, connections refused, messages too large',
      labelNames: ['transport', 'port', 'event'],
      registers,
      collect() {
        this.reset();
        for (const l of read().listeners) {
          for (const event of ['received', 'malformedFraming', 'refusedConnections', 'tooLarge'] as const) this.inc({ transport: l.transport, port: String(l.port), event }, l[event]);
        }
      },
    });
    new Gauge({
      name: 'junction_audit_forward_queued',
      help: "Junction's own audit events waiting to be sent to the audit repository",
      registers,
      collect() {
        this.set(read().forwarding?.queued ?? 0);
      },
    });
    new Counter({
      name: 'junction_audit_forward_messages',
      help: "Junction's own audit events sent to the audit repository, or dropped (queue full, too large for UDP)",
      labelNames: ['outcome'],
      registers,
      collect() {
        const forwarding = read().forwarding;
        this.reset();
        if (forwarding === undefined) return;
        this.inc({ outcome: 'sent' }, forwarding.sent);
        this.inc({ outcome: 'dropped' }, forwarding.dropped);
        this.inc({ outcome: 'tooLarge' }, forwarding.tooLarge);
      },
    });
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
