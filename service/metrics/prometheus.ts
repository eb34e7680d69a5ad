/**
 * The Prometheus exposition: one prom-client Registry per Junction (never the library's global one, so several
 * instances in one process keep their own counts), the process metrics prefixed `openhim_`, and OpenHIM's two
 * transaction metrics, counted as transactions complete (`LiveEvents`' `transaction.completed`). It is served in
 * OpenMetrics text or in Prometheus's classic text format, whichever the scraper asks for.
 *
 * OpenHIM observes milliseconds in a histogram whose help says seconds, so nearly every request lands in +Inf; here
 * the histogram holds seconds, with buckets from 5 ms to a minute (channel timeouts are of that order), and says so in
 * its name (`openhim_request_duration_seconds`), as Prometheus's naming rules and promtool's lint ask.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metric, OpenMetricsContentType } from 'prom-client';
import type { AboutAudits } from '../contracts/api.js';
import type { ExpositionFormat } from '../domain/operations/metrics-negotiation.js';
import type { CompletionDetail, LiveEvents, TransactionEvent } from '../events/live.js';

/** The labels of both transaction metrics, OpenHIM's set. */
const LABELS = ['channel', 'status', 'code', 'method', 'client'] as const;

/** Histogram buckets in seconds. */
export const DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The request histogram's name: OpenHIM's `openhim_request_duration` with the unit it holds. */
export const REQUEST_DURATION_METRIC = 'openhim_request_duration_seconds';

/**
 * prom-client's default Node metrics include three gauges named `..._total` (the sums of the `openhim_nodejs_active_*`
 * gauges by type), which Prometheus reserves for counters: promtool's lint fails on them. They are left out;
 * `sum(openhim_nodejs_active_handles)` and its siblings give the same figures.
 */
const GAUGES_NAMED_AS_COUNTERS = ['openhim_nodejs_active_handles_total', 'openhim_nodejs_active_requests_total', 'openhim_nodejs_active_resources_total'];

/** A registered metric as the registry reads it (prom-client's `Metric` types leave out `get`). */
interface ReadableMetric {
  name: string;
  help: string;
  type: string;
  get(): Promise<{ name: string }>;
  getForPromString?(): Promise<{ name: string }>;
}

/**
 * A metric as the classic text format must name it. The OpenMetrics registry renames its counters to the family name
 * without `_total` the first time it is scraped (prom-client does, in place), and the text format names a counter's
 * samples after the metric itself, so the text view puts the suffix back and reads the same values. One set of metric
 * objects serves both formats: a completion is counted once.
 */
function textFormatView(metric: ReadableMetric): Metric {
  const name = metric.type === 'counter' ? `${metric.name.replace(/_total$/, '')}_total` : metric.name;
  const read = async () => ({ ...(await (metric.getForPromString?.() ?? metric.get())), name });
  // The registry calls only these members; prom-client's types describe the metric classes, not that interface.
  return { name, help: metric.help, type: metric.type, get: read } as unknown as Metric;
}

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
  readonly #refusals: Counter<'channel' | 'reason'>;
  /** Each channel and reason's counter child, so a refusal in a flood costs a map lookup, not label hashing. */
  readonly #refusalChildren = new Map<string, { inc(): void }>();
  #detach: (() => void) | undefined;

  constructor() {
    this.registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    collectDefaultMetrics({ register: this.registry, prefix: 'openhim_' });
    for (const name of GAUGES_NAMED_AS_COUNTERS) this.registry.removeSingleMetric(name);
    this.#transactions = new Counter({ name: 'openhim_transactions_total', help: 'Transactions completed', labelNames: LABELS, registers: [this.registry] });
    this.#duration = new Histogram({
      name: REQUEST_DURATION_METRIC,
      help: 'Transaction response time (response timestamp minus request timestamp) in seconds',
      labelNames: LABELS,
      buckets: DURATION_BUCKETS_SECONDS,
      registers: [this.registry],
    });
    this.#refusals = new Counter({
      name: 'junction_refusals_total',
      help: 'Requests and messages refused before they became transactions (issue 35), by channel (empty when none was known) and reason',
      labelNames: ['channel', 'reason'],
      registers: [this.registry],
    });
  }

  /** One refused request or message (refused/recorder.ts counts each one here). */
  refused(channel: string, reason: string): void {
    const key = `${channel}\u0000${reason}`;
    let child = this.#refusalChildren.get(key);
    if (child === undefined) {
      child = this.#refusals.labels({ channel, reason });
      if (this.#refusalChildren.size >= MAX_CACHED_LABEL_SETS) this.#refusalChildren.clear();
      this.#refusalChildren.set(key, child);
    }
    child.inc();
  }

  /** The content type of `exposition()` without a format: OpenMetrics text 1.0.0. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The content type of `exposition(format)`. */
  static contentTypeOf(format: ExpositionFormat): string {
    return format === 'openmetrics' ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE;
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

  /**
   * The exposition text, in `contentTypeOf(format)`: OpenMetrics by default. The classic text format is read from a
   * registry of views made at each scrape, so every metric registered here, now or later, is in both.
   */
  exposition(format: ExpositionFormat = 'openmetrics'): Promise<string> {
    if (format === 'openmetrics') return this.registry.metrics();
    const text = new Registry();
    for (const metric of this.registry.getMetricsAsArray()) text.registerMetric(textFormatView(metric as unknown as ReadableMetric));
    return text.metrics();
  }
}
