/** When to restart a crashed service and when to give up: exponential backoff over the crashes in a sliding window. */

export interface RestartPolicyOptions {
  /** Wait before the first restart. */
  initialDelayMs: number;
  /** The wait never grows beyond this. */
  maxDelayMs: number;
  /** Each further crash inside the window multiplies the wait by this. */
  factor: number;
  /** Give up once this many crashes fall inside the window. */
  maxCrashes: number;
  /** Crashes older than this are forgotten, so a service that ran well for a while starts again from the first delay. */
  windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  factor: 2,
  maxCrashes: 5,
  windowMs: 120_000,
};

export type RestartDecision = { action: 'restart'; delayMs: number; crashes: number } | { action: 'give-up'; crashes: number };

/** Remembers recent crash times; pure apart from the times it is given. */
export class RestartPolicy {
  readonly #options: RestartPolicyOptions;
  #crashes: number[] = [];

  constructor(options: Partial<RestartPolicyOptions> = {}) {
    this.#options = { ...DEFAULT_RESTART_POLICY, ...options };
  }

  get options(): Readonly<RestartPolicyOptions> {
    return this.#options;
  }

  /** Records a crash at `now` and says whether to restart (after how long) or give up. */
  recordCrash(now: number): RestartDecision {
    const { windowMs, maxCrashes, initialDelayMs, factor, maxDelayMs } = this.#options;
    this.#crashes = this.#crashes.filter((at) => now - at < windowMs);
    this.#crashes.push(now);
    const crashes = this.#crashes.length;
    if (crashes >= maxCrashes) return { action: 'give-up', crashes };
    const delayMs = Math.min(maxDelayMs, Math.round(initialDelayMs * factor ** (crashes - 1)));
    return { action: 'restart', delayMs, crashes };
  }

  /** Forgets every crash (after a person asks to try again). */
  reset(): void {
    this.#crashes = [];
  }
}
