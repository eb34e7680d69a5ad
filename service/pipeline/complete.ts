/**
 * Step 6, in time: the outcome is committed before the client's answer leaves (issue 12), so after any crash the log
 * says what the client was told.
 *
 * - When everything else has finished by then (the other routes, the request body's file), the one write is the
 *   final one: the common case, one commit per transaction as before.
 * - When other routes still run, the client does not wait for them: an "answered" write records the response and the
 *   status recovery gives the transaction if Junction stops before they finish (`statusIfInterrupted`), and the
 *   final write follows when they have.
 *
 * A request body the store could not keep whole (a full disk) is never acknowledged (issue 33): `answered` throws a
 * StoreWriteError instead of committing, the client gets 503 STORE_UNAVAILABLE (an AR NAK on a message channel), and
 * the transaction is Failed with the reason. A client that broke off its upload is a different thing: the routes
 * record that, and the body is simply not stored.
 */
import type { Logger } from 'pino';
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import { transactionReason } from '../domain/transactions/transaction-reason.js';
import { responseTimeOf } from '../events/live.js';
import type { LiveEvents } from '../events/live.js';
import { BodyStoreError } from '../storage/bodies/bodies.js';
import type { BodyRef } from '../storage/bodies/bodies.js';
import { StoreError, StoreWriteError } from '../storage/store.js';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';
import type { TransactionLog, TransactionRecord, TransactionRequest, TransactionResponse } from '../storage/transactions.js';
import type { RouteRun } from './route.js';
import { storeResponse } from './store-response.js';
import type { OtherOutcome, Outcome } from './store-response.js';
import type { MediatorOutcome } from './structured-response.js';

export interface CompletionOptions {
  log: TransactionLog;
  id: string;
  channel: ChannelRecord;
  request: TransactionRequest;
  /** Each other route as started, and its outcome once it answered and its body was moved (never rejects). */
  others: { started: RouteRun; outcome: Promise<OtherOutcome> }[];
  /** The request body's file; rejects when the client broke off the upload, or with a BodyStoreError when the store failed. */
  requestBody?: Promise<BodyRef>;
  /** True once the whole request body arrived (its file is then only a commit away, and is waited for). */
  requestComplete: () => boolean;
}

export class Completion {
  readonly #options: CompletionOptions;
  readonly #others: OtherOutcome[];
  #requestBody: BodyRef | undefined;
  /** Why the store could not keep the request body (not set when the client broke off). */
  #requestBodyLost: BodyStoreError | undefined;
  #requestBodySettled: boolean;
  readonly #requestBodyDone: Promise<void>;
  readonly #allDone: Promise<void>;
  #answer: { primary: RouteRun; response: TransactionResponse; mediator?: MediatorOutcome } | undefined;
  #written: 'nothing' | 'answered' | 'final' = 'nothing';
  #record: TransactionRecord | null = null;
  #abandoned = false;

  constructor(options: CompletionOptions) {
    this.#options = options;
    this.#others = options.others.map(({ started }) => ({ run: started, pending: true }));
    const others = options.others.map(({ outcome }, i) =>
      outcome.then((done) => {
        this.#others[i] = done;
      }),
    );
    this.#requestBodySettled = options.requestBody === undefined;
    this.#requestBodyDone = (options.requestBody ?? Promise.resolve(undefined)).then(
      (ref) => {
        this.#requestBody = ref;
        this.#requestBodySettled = true;
      },
      (err: unknown) => {
        // A broken-off upload is recorded by the routes, and the body is simply not stored; a store failure is not.
        if (err instanceof BodyStoreError) this.#requestBodyLost = err;
        this.#requestBodySettled = true;
      },
    );
    this.#allDone = Promise.all([...others, this.#requestBodyDone]).then(() => undefined);
    // Awaited by finished(); if answering failed first, nobody does, and a rejection must not end the process.
    this.#allDone.catch(() => undefined);
  }

  /**
   * Before an answer's status line goes out (a streamed answer cannot become a 503 afterwards): when the whole request
   * has arrived, waits for its body to be stored and throws the StoreWriteError `answered` would if it was not.
   */
  async requestStored(): Promise<void> {
    if (!this.#requestBodySettled && this.#options.requestComplete()) await this.#requestBodyDone;
    if (this.#requestBodyLost !== undefined) throw requestNotStored(this.#requestBodyLost);
  }

  /** Records what the client is about to be told; resolves once it is committed, and only then may the answer go out. */
  async answered(primary: RouteRun, response: TransactionResponse, mediator?: MediatorOutcome): Promise<void> {
    this.#answer = mediator === undefined ? { primary, response } : { primary, response, mediator };
    if (this.#abandoned) return;
    if (!this.#requestBodySettled && this.#options.requestComplete()) await this.#requestBodyDone;
    if (this.#requestBodyLost !== undefined) throw requestNotStored(this.#requestBodyLost);
    if (this.#requestBodySettled && !this.#others.some((o) => o.pending === true)) {
      this.#record = await this.#store('final');
      this.#written = 'final';
      return;
    }
    await this.#store('answered');
    this.#written = 'answered';
  }

  /** Waits for the other routes and the request body, writes the final record unless it is written, and returns it. */
  async finished(): Promise<TransactionRecord | null> {
    if (this.#written === 'final' || this.#abandoned) return this.#record;
    await this.#allDone;
    if (this.#abandoned) return this.#record;
    this.#record = await this.#store('final');
    this.#written = 'final';
    return this.#record;
  }

  /** Stops every later write: the transaction was finished another way (the stall watchdog). */
  abandon(): void {
    this.#abandoned = true;
  }

  #store(stage: 'answered' | 'final'): Promise<TransactionRecord | null> {
    const answer = this.#answer;
    if (answer === undefined) throw new Error('a transaction was completed before its client was answered');
    const { log, id, channel, request } = this.#options;
    const outcome: Outcome = {
      request,
      primary: answer.primary,
      response: answer.response,
      others: [...this.#others],
      ...(this.#requestBody === undefined ? {} : { requestBody: this.#requestBody }),
      ...(this.#requestBodyLost === undefined ? {} : { requestBodyLost: requestNotStored(this.#requestBodyLost) }),
      ...(answer.mediator === undefined ? {} : { mediator: answer.mediator }),
    };
    return storeResponse(log, id, channel, outcome, stage, stage === 'final' && this.#written === 'answered').catch((err: unknown) => {
      throw err instanceof StoreError ? err : new StoreWriteError('the transaction could not be updated', err);
    });
  }
}

/** Why a transaction whose request body the store lost is Failed, and what its sender was told. */
function requestNotStored(lost: BodyStoreError): StoreWriteError {
  return new StoreWriteError('the request body could not be stored in full, so the sender was refused (503 STORE_UNAVAILABLE, or an AR NAK) and should send it again', lost);
}

/**
 * Who and what a finished transaction was, as `transaction.completed` tells it, whichever transport it came by (an
 * HTTP request's context is one as it is, so the hot path allocates nothing for it).
 */
export interface FinishedTransaction {
  id: string;
  client: Pick<ClientRecord, 'name'> | null;
  method: string;
  path: string;
}

/** Emits `transaction.completed` for a finished transaction (callers make sure it is once). */
export function announceCompleted(events: LiveEvents, done: FinishedTransaction, channel: Pick<ChannelRecord, '_id' | 'name'>, status: TransactionStatus, record: TransactionRecord | null): void {
  const responseStatus = record?.response?.status;
  const responseTimeMs = responseTimeOf(record);
  events.completed(
    {
      transactionId: done.id,
      channelID: channel._id,
      status,
      method: done.method,
      path: done.path,
      ...(responseStatus === undefined ? {} : { responseStatus }),
    },
    {
      channelName: channel.name,
      ...(done.client === null ? {} : { clientName: done.client.name }),
      ...(responseTimeMs === undefined ? {} : { responseTimeMs }),
      ...(record === null ? {} : { transaction: record }),
    },
  );
}

/** Marks a stored transaction Failed with `message`; resolves with the record, or null when even that write failed (logged). Never rejects. */
export async function markFailed(log: TransactionLog, logger: Logger, id: string, message: string): Promise<TransactionRecord | null> {
  try {
    const reason = transactionReason({ status: 'Failed', error: message });
    return await log.update(id, { set: { status: 'Failed', error: { message }, ...(reason === undefined ? {} : { reason }) } });
  } catch (err) {
    logger.error({ err, transactionId: id }, 'could not mark the transaction Failed');
    return null;
  }
}
