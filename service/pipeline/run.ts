/**
 * Steps 4–6 of every transaction, whichever transport it came by (an HTTP port, a tcp, tls or MLLP listener, a
 * polling tick, a re-run): store it Processing, fan it out to its routes, answer the sender once the outcome is
 * committed, and finish it exactly once. What differs per transport is a small adapter (`RunAdapter`): how the routes
 * are started (a streamed request or one whole message), how the sender is answered (an HTTP response, reply bytes
 * the listener frames), and what a sender Junction failed is told (503 or an AR NAK).
 *
 * Every transaction stored here ends in a final status and a `transaction.completed` event, whatever breaks: a route,
 * the sender, the store, or a defect (issue 12). Nothing waits without a limit: the stall watchdog gives up on a
 * transaction in which nothing moved for the route timeout plus a grace.
 */
import type { Logger } from 'pino';
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import type { LiveEvents } from '../events/live.js';
import type { BodyRef } from '../storage/bodies/bodies.js';
import type { ChannelRecord } from '../storage/records.js';
import { StoreError } from '../storage/store.js';
import type { TransactionLog, TransactionRecord } from '../storage/transactions.js';
import type { Admission } from './admission.js';
import { announceCompleted, Completion, markFailed } from './complete.js';
import type { FinishedTransaction } from './complete.js';
import type { RouteRun } from './route.js';
import { storeTransaction } from './store-request.js';
import type { NewTransactionFields } from './store-request.js';
import type { OtherOutcome } from './store-response.js';
import type { UnfinishedTransactions } from './unfinished.js';
import { STALL_GRACE_MS, Watchdog } from './watchdog.js';

export interface RunDeps {
  log: TransactionLog;
  events: LiveEvents;
  logger: Logger;
  /** Told of a store failure, so new transactions are refused until the store answers again. */
  admission?: Admission;
  /** Finishes, once the store answers again, a transaction whose last write failed (unfinished.ts). */
  unfinished?: Pick<UnfinishedTransactions, 'add'>;
}

/** What every route wait is bounded by, and how progress is reported to the watchdog. */
export interface Moving {
  timeoutMs: number;
  /** Aborted when the transaction stalls: every route and body move gives up. */
  signal: AbortSignal;
  /** Something moved (a chunk, an answer): the watchdog starts again. */
  touch: () => void;
}

/** The routes as a transport started them, with the request body's store. */
export interface Begun {
  primary: Promise<RouteRun>;
  /** Each other route as started, and its outcome once its answer was read and stored (never rejects). */
  others: { started: RouteRun; outcome: Promise<OtherOutcome> }[];
  /** The request body's stored copy, when the channel keeps it. */
  requestBody?: Promise<BodyRef>;
  /** True once the whole request arrived (always, for a message read whole). */
  requestComplete: () => boolean;
}

/** What differs per transport. */
export interface RunAdapter<Answer> {
  /** Step 5a: starts the fan-out (route.ts) and the request body's store. */
  begin(moving: Moving): Begun;
  /**
   * Step 5b: answers the sender from the primary's run, recording the response with `completion.answered` before
   * anything leaves; resolves when the transport's side is done.
   */
  answer(primary: RouteRun, completion: Completion, moving: Moving): Promise<Answer>;
  /** Junction could not take or finish the transaction (the store failed, or a defect): what the sender gets instead. */
  refuse(err: unknown): Answer;
  /** The transaction stalled: ends the transport's side (an HTTP exchange closes both sockets). */
  stalled?(): void;
}

/** What to run: the channel, the transaction's first record, how it is announced, and its route timeout. */
export interface RunSpec {
  channel: ChannelRecord;
  fields: Omit<NewTransactionFields, 'channel'>;
  /** Who and what it is, as `transaction.started` and `transaction.completed` tell it. */
  announced: FinishedTransaction;
  timeoutMs: number;
}

/** The sender's answer, and a promise settling once the transaction is final (never rejects). */
export interface RunResult<Answer> {
  answer: Answer;
  finished: Promise<void>;
}

/** Steps 4–6 for one transaction. Never rejects: every failure ends in the adapter's refusal and a Failed record. */
export async function runTransaction<Answer>(deps: RunDeps, spec: RunSpec, adapter: RunAdapter<Answer>): Promise<RunResult<Answer>> {
  const run = new TransactionRun(deps, spec);
  return run.run(adapter);
}

class TransactionRun {
  readonly #deps: RunDeps;
  readonly #spec: RunSpec;
  /** The Processing record was inserted (before that there is nothing to finish). */
  #stored = false;
  /** `transaction.completed` was emitted: the transaction is finished. */
  #finished = false;
  #completion: Completion | undefined;

  constructor(deps: RunDeps, spec: RunSpec) {
    this.#deps = deps;
    this.#spec = spec;
  }

  async run<Answer>(adapter: RunAdapter<Answer>): Promise<RunResult<Answer>> {
    const { log, events } = this.#deps;
    const { channel, fields, announced, timeoutMs } = this.#spec;
    let watchdog: Watchdog | undefined;
    try {
      await storeTransaction(log, { ...fields, channel });
      this.#stored = true;
      events.emit('transaction.started', { transactionId: fields.id, channelID: channel._id, status: 'Processing', method: announced.method, path: announced.path });
      const abort = new AbortController();
      const limitMs = timeoutMs + STALL_GRACE_MS;
      const dog = new Watchdog(limitMs, () => this.#stalled(adapter, abort, limitMs));
      watchdog = dog;
      const moving: Moving = { timeoutMs, signal: abort.signal, touch: () => dog.touch() };
      const begun = adapter.begin(moving);
      const completion = new Completion({
        log,
        id: fields.id,
        channel,
        request: fields.request,
        others: begun.others,
        ...(begun.requestBody === undefined ? {} : { requestBody: begun.requestBody }),
        requestComplete: begun.requestComplete,
      });
      this.#completion = completion;
      const answer = await adapter.answer(await begun.primary, completion, moving);
      const finished = completion
        .finished()
        .then((record) => this.#completed(record?.status ?? 'Failed', record))
        .catch((err: unknown) => this.#failedInside(err))
        .finally(() => dog.stop());
      return { answer, finished };
    } catch (err) {
      watchdog?.stop();
      await this.#failedInside(err);
      return { answer: adapter.refuse(err), finished: Promise.resolve() };
    }
  }

  /** A store failure or a defect: logged, the store's trouble reported, and the transaction Failed if it was stored. */
  async #failedInside(err: unknown): Promise<void> {
    const { logger, admission } = this.#deps;
    const { fields, channel } = this.#spec;
    const storeFailed = err instanceof StoreError;
    if (storeFailed) admission?.storeFailed();
    logger.error(
      { err, transactionId: fields.id, channel: channel.name },
      storeFailed ? 'a transaction could not be stored; its sender was refused and should send it again' : 'a transaction failed inside Junction',
    );
    await this.#fail((err as Error).message);
  }

  /**
   * Nothing moved for the route timeout plus a grace (watchdog.ts): gives up on the transaction. Everything it waits
   * on is aborted, so the ordinary path finishes it as Failed with this reason; should even that not happen (a
   * defect), it is marked Failed here after another grace.
   */
  #stalled(adapter: RunAdapter<unknown>, abort: AbortController, limitMs: number): void {
    const { fields, channel } = this.#spec;
    const reason = new Error(
      `nothing moved for ${limitMs} ms (the sender stopped reading its answer or sending its request, or a part of Junction stalled); Junction gave up on the transaction`,
    );
    this.#deps.logger.warn({ transactionId: fields.id, channel: channel.name, limitMs }, 'transaction stalled; giving up on it');
    abort.abort(reason);
    adapter.stalled?.();
    const last = setTimeout(() => void this.#fail(reason.message), STALL_GRACE_MS);
    last.unref();
  }

  /** Finishes the transaction as Failed with `message`, unless it is finished already or was never stored; never rejects. */
  async #fail(message: string): Promise<void> {
    if (this.#finished || !this.#stored) return;
    this.#completion?.abandon();
    const { id } = this.#spec.fields;
    const record = await markFailed(this.#deps.log, this.#deps.logger, id, message);
    // The store is down: the transaction stays Processing until it is back, then is finished as it would be now.
    if (record === null) this.#deps.unfinished?.add(id, message);
    this.#completed('Failed', record);
  }

  /** Emits `transaction.completed`, once per transaction. */
  #completed(status: TransactionStatus, record: TransactionRecord | null): void {
    if (this.#finished) return;
    this.#finished = true;
    announceCompleted(this.#deps.events, this.#spec.announced, this.#spec.channel, status, record);
  }
}
