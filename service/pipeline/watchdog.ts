/**
 * A transaction's stall watchdog: the safety net under issue 12's "no transaction stays Processing". Every wait in
 * the pipeline has a shorter limit of its own (the route timeout for headers and between body chunks, commits that
 * settle), so when nothing has moved for the route timeout plus a grace, something is stuck: a client that stopped
 * reading its answer or sending its request, or a defect. The watchdog then gives up on the transaction (see
 * Pipeline#stalled), so that it cannot stay Processing, holding its memory, until a restart.
 *
 * Progress is any chunk of the request or of an answer, and any answer's arrival: a long transfer that keeps moving
 * is never cut short. One timer per transaction, refreshed in place, so the cost per chunk is a timer refresh.
 */

/** Added to the route timeout before a transaction counts as stalled. */
export const STALL_GRACE_MS = 2_000;

export class Watchdog {
  readonly #timer: NodeJS.Timeout;
  #done = false;

  /** Calls `onStall` once, if `touch` was not called for `limitMs`. */
  constructor(
    readonly limitMs: number,
    onStall: () => void,
  ) {
    this.#timer = setTimeout(() => {
      this.#done = true;
      onStall();
    }, limitMs);
    // A stalled transaction must not keep a stopping process alive.
    this.#timer.unref();
  }

  /** Something moved: the limit starts again. */
  touch(): void {
    // refresh() would arm a timer that already fired again.
    if (!this.#done) this.#timer.refresh();
  }

  stop(): void {
    this.#done = true;
    clearTimeout(this.#timer);
  }
}
