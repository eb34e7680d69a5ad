/**
 * The lifecycle of the service's parts ("wings"), after Fastify's: each wing is registered in the order it is built,
 * and closing runs in the reverse order, so a part always stops before the parts it was built from. Nothing keeps a
 * stop list by hand: the order the root builds the wings in is the order they stop in, backwards.
 */

/** How a wing winds down: two phases, each run newest wing first. */
export interface Stops {
  /**
   * The first phase, for every wing before any `stop`: ends what would start new work or hold a stop up (periodic
   * timers, a backup being written). Synchronous, so no wing waits for another here.
   */
  halt?: () => void;
  /** The second phase: lets running work finish and closes. */
  stop?: () => Promise<void> | void;
}

/**
 * What a wing hands back: how it stops, and what it offers the wings built after it, either at once (then `start`,
 * if any, opens what was built) or as the result of `start` (what is only known once started, such as bound ports).
 * A wing's `halt` and `stop` run even when its `start` rejects, as the service has always closed every part it had
 * built, opened or not.
 */
export type Wing<Offers> = Stops & ({ offers: Offers; start?: () => Promise<void> | void } | { start: () => Promise<Offers> });

/** What a wing offers, whichever way it hands it over. */
type OffersOf<W> = W extends { offers: infer O } ? O : W extends { start: () => Promise<infer O> } ? O : never;

interface Registered {
  halt?: () => void;
  stop?: () => Promise<void> | void;
}

export class Lifecycle {
  readonly #wings: Registered[] = [];
  #stopping: Promise<void> | undefined;

  /** Builds a wing, registers how it stops, then starts it; resolves with what it offers. */
  async add<W extends Wing<unknown>>(name: string, build: () => W | Promise<W>): Promise<OffersOf<W>> {
    // A stop asked for while starting wins: nothing built after it would ever be stopped.
    if (this.#stopping !== undefined) throw new Error(`the service is stopping: ${name} was not started`);
    const wing = await build();
    if (this.#stopping !== undefined) {
      wing.halt?.();
      await wing.stop?.();
      throw new Error(`the service is stopping: ${name} was not started`);
    }
    this.#wings.push({ ...(wing.halt === undefined ? {} : { halt: wing.halt }), ...(wing.stop === undefined ? {} : { stop: wing.stop }) });
    if (!('offers' in wing)) return (await wing.start()) as OffersOf<W>;
    await wing.start?.();
    return wing.offers as OffersOf<W>;
  }

  /** Halts every registered wing, then stops them, each newest first. Safe to call more than once. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const wings = [...this.#wings].reverse();
      for (const wing of wings) wing.halt?.();
      for (const wing of wings) await wing.stop?.();
    })();
    return this.#stopping;
  }
}

/** A signal several parts subscribe to: what used to be an optional field set later is a subscription. */
export class Topic<Args extends unknown[] = []> {
  readonly #listeners = new Set<(...args: Args) => unknown>();

  subscribe(listener: (...args: Args) => unknown): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls every listener now, in the order they subscribed (a listener that throws throws here, as a direct call
   * would); the promise resolves once those that returned one have settled.
   */
  emit(...args: Args): Promise<void> {
    const pending: unknown[] = [];
    for (const listener of this.#listeners) pending.push(listener(...args));
    return Promise.all(pending).then(() => undefined);
  }
}
