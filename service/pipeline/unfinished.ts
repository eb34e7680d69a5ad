/**
 * Transactions whose last write failed (the database went away between their Processing insert and their outcome):
 * their senders were refused, but the log still says Processing. Each is tried again, at growing intervals, until the
 * store takes the write, so the log is right again soon after the store is back, without a restart. They are finished
 * by the rule start-up recovery applies (storage/interrupted.ts): Failed with the reason, or, when the client had
 * been answered, the status that answer implied. Should this instance stop first, start-up recovery (or a surviving
 * instance) finishes them by the same rule.
 */
import type { Logger } from 'pino';
import { finishInterrupted } from '../storage/interrupted.js';
import type { TransactionChanges, TransactionLog } from '../storage/transactions.js';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 2000;

export interface UnfinishedOptions {
  log: Pick<TransactionLog, 'get' | 'update'>;
  logger: Logger;
  /** The first pause before a retry (doubled each time up to `maxRetryMs`); tests pass small ones. */
  firstRetryMs?: number;
  maxRetryMs?: number;
}

interface Waiting {
  message: string;
  delayMs: number;
  timer: NodeJS.Timeout;
}

export class UnfinishedTransactions {
  readonly #options: UnfinishedOptions;
  readonly #waiting = new Map<string, Waiting>();
  #stopped = false;

  constructor(options: UnfinishedOptions) {
    this.#options = options;
  }

  /** How many transactions wait for their outcome to be written. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Finishes transaction `id` as Failed with `message` (or as its answer implied) once the store takes the write. */
  add(id: string, message: string): void {
    if (this.#stopped || this.#waiting.has(id)) return;
    this.#plan(id, message, this.#options.firstRetryMs ?? FIRST_RETRY_MS);
  }

  /** Stops retrying; what is left is finished by start-up recovery. */
  stop(): void {
    this.#stopped = true;
    for (const waiting of this.#waiting.values()) clearTimeout(waiting.timer);
    if (this.#waiting.size > 0) this.#options.logger.warn({ transactions: [...this.#waiting.keys()] }, 'stopping with transactions still Processing; start-up recovery finishes them');
    this.#waiting.clear();
  }

  #plan(id: string, message: string, delayMs: number): void {
    const timer = setTimeout(() => void this.#retry(id), delayMs);
    timer.unref();
    this.#waiting.set(id, { message, delayMs, timer });
  }

  async #retry(id: string): Promise<void> {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined || this.#stopped) return;
    const { log, logger } = this.#options;
    try {
      const record = await log.get(id);
      if (record !== null && record.status === 'Processing') {
        await log.update(id, changesFor(record, waiting.message));
        logger.info({ transactionId: id }, 'a transaction whose outcome could not be written is finished now that the store answers');
      }
      this.#waiting.delete(id);
    } catch {
      if (this.#stopped) return;
      this.#plan(id, waiting.message, Math.min(this.#options.maxRetryMs ?? MAX_RETRY_MS, waiting.delayMs * 2));
    }
  }
}

/** Failed with `message`, unless the client was answered before the write failed: then what the answer implied. */
function changesFor(record: Parameters<typeof finishInterrupted>[0], message: string): TransactionChanges {
  if (record.statusIfInterrupted === undefined) return { set: { status: 'Failed', error: { message } } };
  const { set } = finishInterrupted(record);
  return { set, unset: ['statusIfInterrupted'] };
}
