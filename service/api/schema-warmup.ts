/**
 * Work to do on the main thread just after start, in the background: the transaction list's warm read (routes/
 * transactions.ts), and compiling route schemas that have no code compiled at build time. The bundle carries every
 * route's validators and serializers compiled at build time (compiled-schemas.ts, issue 19), so there the queue holds
 * the warm read and the reading of `/me`'s and `/transactions`'s compiled code (about 1 ms); the TypeScript sources
 * (tests, the tsc output) have no compiled code, and compile here, or on first use.
 *
 * One item per turn of the event loop, the routes a console opens first at the front; a request that comes first
 * compiles its own, and the queue then skips it. The queue gives way to the API: once `/me` and `/transactions` are
 * done, nothing starts while a request is being answered (see `hold`); those two do not wait, as the console's first
 * requests need them. Profiled at 10,000,000 transactions, compiling every route here took 1–2 s of the main thread
 * after ready, with single compiles holding the event loop for up to ~100 ms (issue 19): why the build compiles them.
 */

/** Routes the console calls as it opens, compiled first (by path prefix, in this order). */
const FIRST = ['/me', '/transactions', '/channels', '/heartbeat', '/metrics', '/mediators', '/about'];
/** The first routes of FIRST whose compiles never wait for a request: the console asks for `/me`, then a page. */
const UNHELD = 2;

interface Pending {
  url: string;
  compile: () => void;
}

export class SchemaWarmup {
  readonly #pending: Pending[] = [];
  #running = false;
  #stopped = false;
  #finished = false;
  /** Requests being answered: while above zero, no compile starts. */
  #held = 0;
  /** The next compile, when it was put off by a request; started again by the last release. */
  #parked: (() => void) | null = null;

  /**
   * True for the routes a console opens with (`/me`, `/transactions`, exactly): their serializers are worth compiling
   * whole, validators of unions included (lazy-serializers.ts), where other routes keep those for their first answer.
   */
  opensWith(url: string): boolean {
    return FIRST.slice(0, UNHELD).includes(url);
  }

  /** Records a compile to do later; `compile` must be a no-op once the route has compiled it itself. */
  add(url: string, compile: () => void): void {
    if (!this.#stopped) this.#pending.push({ url, compile });
  }

  /** Starts compiling what was recorded, in the background; never throws (a schema that fails compiles on use). */
  start(): void {
    if (this.#running || this.#stopped) return;
    this.#running = true;
    const rank = (url: string) => {
      const i = FIRST.findIndex((prefix) => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`));
      return i === -1 ? FIRST.length : i;
    };
    const queue = this.#pending.splice(0).map((p, order) => ({ ...p, order, rank: rank(p.url) }));
    queue.sort((a, b) => a.rank - b.rank || a.order - b.order);
    const next = (): void => {
      // The two routes a console opens with compile whatever the API is doing: its first requests are waiting for them.
      if (this.#held > 0 && (queue[0]?.rank ?? 0) >= UNHELD) {
        this.#parked = next;
        return;
      }
      const item = queue.shift();
      if (item === undefined || this.#stopped) {
        this.#finished = true;
        return;
      }
      try {
        item.compile();
      } catch {
        // Left for the route's first request, which reports the problem where it belongs.
      }
      setImmediate(next).unref();
    };
    setImmediate(next).unref();
  }

  /**
   * Puts compiles off until the returned release is called (once or more: only the first counts); the API holds the
   * queue for each request it answers. Costs nothing once the queue has finished.
   */
  hold(): () => void {
    if (this.#finished || this.#stopped) return noop;
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
      const parked = this.#parked;
      if (this.#held > 0 || parked === null) return;
      this.#parked = null;
      setImmediate(parked).unref();
    };
  }

  /** Stops compiling (the service is stopping). */
  stop(): void {
    this.#stopped = true;
    this.#finished = true;
    this.#parked = null;
    this.#pending.length = 0;
  }
}

function noop(): void {
  // Nothing to release: the queue had finished when the request came.
}
