/**
 * Lookups by key asked for in the same turn of the event loop, sent as one statement (`= ANY($1)`) instead of one
 * round trip each: the search indexer reads each finished transaction and its two bodies with several lookups at
 * once (issue 38: they were a third of the statements per request). A lookup resolves with what that one statement
 * read (each statement sees what had committed when it started, as a lookup of its own would); when the statement
 * fails, every lookup in it fails with that error, as each would have alone.
 */

/** Keys per statement: an array parameter this long stays a small message and a quick index scan. */
const MAX_KEYS = 1000;

interface Waiting<V> {
  key: string;
  resolve: (value: V | undefined) => void;
  reject: (err: unknown) => void;
}

export class GroupedReads<V> {
  #waiting: Waiting<V>[] = [];
  #scheduled = false;

  /**
   * @param readMany reads the values of distinct keys, in one statement
   * @param copy gives a second caller of the same key a value of its own (documents are mutable)
   */
  constructor(
    private readonly readMany: (keys: string[]) => Promise<Map<string, V>>,
    private readonly copy: (value: V) => V = (value) => value,
  ) {}

  /** The value of `key`, or undefined when there is none. */
  get(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ key, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let i = 0; i < waiting.length; i += MAX_KEYS) void this.#read(waiting.slice(i, i + MAX_KEYS));
  }

  async #read(waiting: readonly Waiting<V>[]): Promise<void> {
    let values: Map<string, V>;
    try {
      values = await this.readMany([...new Set(waiting.map((w) => w.key))]);
    } catch (err) {
      for (const w of waiting) w.reject(err);
      return;
    }
    const given = new Set<string>();
    for (const w of waiting) {
      const value = values.get(w.key);
      if (value === undefined) {
        w.resolve(undefined);
        continue;
      }
      w.resolve(given.has(w.key) ? this.copy(value) : value);
      given.add(w.key);
    }
  }
}
