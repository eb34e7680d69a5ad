/**
 * Whether the PostgreSQL server answers, as /health and the needs-attention list tell it. The pool says nothing
 * while it works; a dropped connection or a refused connect is only a suspicion (an administrator may have ended one
 * backend, or a proxy restarted), so it is checked at once with a probe, and only a failed probe makes the database
 * unreachable. From then on the probe runs every `probeEveryMs` until it answers, so the outage is reported over as
 * soon as the server is back, whether or not any traffic comes.
 */
import type { Logger } from 'pino';

/** Why and since when the database has not answered; absent while it answers. */
export interface Unreachable {
  /** When the first failure of this outage was seen (ISO 8601). */
  since: string;
  /** The last failure's message, for a person. */
  error: string;
}

export interface ReachabilityOptions {
  /** One round trip to the server; rejects when it does not answer. */
  probe: () => Promise<void>;
  /** How often an unreachable database is tried again. */
  probeEveryMs: number;
  logger: Logger;
  now?: () => number;
}

export class Reachability {
  readonly #options: ReachabilityOptions;
  #unreachable: Unreachable | null = null;
  /** When the failure being checked was first seen (the outage starts there if the probe confirms it). */
  #suspectedAt: number | null = null;
  #lastError = '';
  #probing = false;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(options: ReachabilityOptions) {
    this.#options = options;
  }

  /** The outage in progress, or null while the database answers. */
  get unreachable(): Unreachable | null {
    return this.#unreachable;
  }

  /** A connection failed or dropped: checks at once (unless a check is already under way or planned). */
  suspect(err: unknown): void {
    if (this.#stopped) return;
    this.#lastError = err instanceof Error ? err.message : String(err);
    if (this.#unreachable !== null) this.#unreachable = { ...this.#unreachable, error: this.#lastError };
    this.#suspectedAt ??= this.#now();
    if (this.#probing || this.#timer !== null) return;
    this.#probe();
  }

  /** Ends the probing (the pool is closing). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #probe(): void {
    this.#probing = true;
    this.#options.probe().then(
      () => this.#answered(),
      (err: unknown) => this.#failed(err),
    );
  }

  #answered(): void {
    this.#probing = false;
    this.#suspectedAt = null;
    const outage = this.#unreachable;
    if (outage === null) return;
    this.#unreachable = null;
    this.#options.logger.info({ since: outage.since, downMs: this.#now() - Date.parse(outage.since) }, 'the PostgreSQL database answers again');
  }

  #failed(err: unknown): void {
    this.#probing = false;
    if (this.#stopped) return;
    const error = err instanceof Error ? err.message : String(err);
    this.#lastError = error;
    if (this.#unreachable === null) {
      this.#unreachable = { since: new Date(this.#suspectedAt ?? this.#now()).toISOString(), error };
      // Said once per outage; the probes that follow are quiet until the database answers.
      this.#options.logger.error({ error }, 'the PostgreSQL database does not answer: transactions are refused (503 STORE_UNAVAILABLE, or an AR/CR ACK) until it does');
    } else {
      this.#unreachable = { ...this.#unreachable, error };
    }
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#stopped) this.#probe();
    }, this.#options.probeEveryMs);
    this.#timer.unref();
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }
}
