/**
 * Route schemas are compiled on a route's first use so they cost nothing at start (issue 19), which left the first
 * request of each route paying for its own (the console's first transaction list: ~30–50 ms). After start this queue
 * compiles them in the background, one per turn of the event loop, the routes a console opens first at the front;
 * a request that comes first compiles its own as before, and the queue then skips it.
 */

/** Routes the console calls as it opens, compiled first (by path prefix, in this order). */
const FIRST = ['/me', '/transactions', '/channels', '/heartbeat', '/metrics', '/mediators', '/about'];

interface Pending {
  url: string;
  compile: () => void;
}

export class SchemaWarmup {
  readonly #pending: Pending[] = [];
  #running = false;
  #stopped = false;

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
      const item = queue.shift();
      if (item === undefined || this.#stopped) return;
      try {
        item.compile();
      } catch {
        // Left for the route's first request, which reports the problem where it belongs.
      }
      setImmediate(next).unref();
    };
    setImmediate(next).unref();
  }

  /** Stops compiling (the service is stopping). */
  stop(): void {
    this.#stopped = true;
    this.#pending.length = 0;
  }
}
