/**
 * The attempts of one message: an original transaction with its re-runs and automatic retries, linked by `parentID`
 * (towards the original) and `childIDs` (towards the re-runs). A bulk re-run with `latestAttemptOnly` re-runs a
 * matching transaction only when it is the latest attempt of its message, so an original and its earlier re-run
 * never both go out again, and nothing goes out again when a later attempt (which may not match the filters, being
 * Successful, say) exists.
 *
 * Read through the transaction log's `get`, so it works the same on every storage engine. Most transactions are in
 * no chain (no parentID, no childIDs) and cost nothing; the others are read once per bulk re-run, and only their ids,
 * times and message keys are kept, never whole transactions.
 */
import { isLaterAttempt } from '../domain/transactions/rerun.js';
import type { Attempt } from '../domain/transactions/rerun.js';
import type { TransactionLog } from '../storage/transactions.js';

/** What is read of a transaction to place it among its message's attempts. */
export interface ChainedTransaction extends Attempt {
  parentID?: string;
  childIDs?: readonly string[];
}

// Parent links cannot loop (a re-run's parent is older, and the API never writes parentID), but a damaged log must
// not hang a request: a chain is not followed further up than this.
const MAX_DEPTH = 10_000;

export class LatestAttempts {
  readonly #log: Pick<TransactionLog, 'get'>;
  /** Transaction id → its message's key: the id of the furthest ancestor named (even one removed by retention). */
  readonly #messageOf = new Map<string, string>();
  /** Message key → its latest attempt found. */
  readonly #latest = new Map<string, Attempt>();
  /** Transactions whose re-runs have been read. */
  readonly #walked = new Set<string>();

  constructor(log: Pick<TransactionLog, 'get'>) {
    this.#log = log;
  }

  /** Places a transaction among its message's attempts (reading its chain once) and answers its message's key. */
  async add(tx: ChainedTransaction): Promise<string> {
    const known = this.#messageOf.get(tx._id);
    if (known !== undefined && this.#walked.has(tx._id)) return known;
    if (tx.parentID === undefined && (tx.childIDs ?? []).length === 0) {
      this.#messageOf.set(tx._id, tx._id);
      this.#walked.add(tx._id);
      this.#consider(tx._id, tx);
      return tx._id;
    }
    const { key, top } = await this.#up(tx);
    await this.#down(top, key);
    return key;
  }

  /** True when the transaction is the latest attempt of the message `key` found so far (after every `add`: of all). */
  isLatest(id: string, key: string): boolean {
    return this.#latest.get(key)?._id === id;
  }

  /** Follows parentID up to the original (or to the first ancestor no longer in the log, or one already placed). */
  async #up(tx: ChainedTransaction): Promise<{ key: string; top: ChainedTransaction }> {
    const chain: string[] = [tx._id];
    let top = tx;
    let key: string | undefined;
    for (let depth = 0; key === undefined; depth++) {
      const parentID = top.parentID;
      if (parentID === undefined || depth >= MAX_DEPTH) {
        key = top._id;
        break;
      }
      const placed = this.#messageOf.get(parentID);
      if (placed !== undefined) {
        key = placed;
        break;
      }
      const parent = await this.#log.get(parentID);
      if (parent === null) {
        // Removed by retention: its re-runs still belong together, under its id.
        key = parentID;
        this.#messageOf.set(parentID, parentID);
        break;
      }
      chain.push(parent._id);
      top = parent;
    }
    for (const id of chain) this.#messageOf.set(id, key);
    return { key, top };
  }

  /** Reads every re-run below `top` (breadth first), noting the latest attempt of the message. */
  async #down(top: ChainedTransaction, key: string): Promise<void> {
    const queue: ChainedTransaction[] = [top];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (this.#walked.has(next._id)) continue;
      this.#walked.add(next._id);
      this.#messageOf.set(next._id, key);
      this.#consider(key, next);
      for (const childID of next.childIDs ?? []) {
        if (this.#walked.has(childID)) continue;
        const child = await this.#log.get(childID);
        if (child !== null) queue.push(child);
      }
    }
  }

  #consider(key: string, attempt: Attempt): void {
    const latest = this.#latest.get(key);
    if (latest === undefined || isLaterAttempt(attempt, latest)) this.#latest.set(key, { _id: attempt._id, request: { timestamp: attempt.request.timestamp } });
  }
}
