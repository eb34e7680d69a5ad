/**
 * Step 6: the second write: response, other routes, final status (SPEC.md table), re-run and retry flags. It is
 * written before the client's answer leaves (complete.ts); when other routes are still running then, it is first
 * written as "answered" (still Processing, with the status start-up recovery gives it if Junction stops before they
 * finish), and again when they have.
 */
import { computeStatus } from '../domain/transactions/transaction-status.js';
import type { RouteOutcome, TransactionStatus } from '../domain/transactions/transaction-status.js';
import { storedHeaders } from '../domain/transactions/stored-headers.js';
import { transactionReason } from '../domain/transactions/transaction-reason.js';
import type { AnswerFacts, RouteFacts } from '../domain/transactions/transaction-reason.js';
import type { BodyRef } from '../storage/bodies/bodies.js';
import type { ChannelRecord } from '../storage/records.js';
import type { ExchangeRecord, TransactionLog, TransactionRecord, TransactionRequest, TransactionResponse } from '../storage/transactions.js';
import { RouteError } from '../routing/http.js';
import type { RouteRun } from './route.js';
import type { MediatorOutcome } from './structured-response.js';

/** A route other than the primary: its run, its stored answer body, or `pending` while it is still running. */
export interface OtherOutcome {
  run: RouteRun;
  body?: BodyRef;
  /** The answer's body was read but the store failed to keep it (respond.ts `storedBody`). */
  bodyNotStored?: true;
  pending?: boolean;
}

export interface Outcome {
  request: TransactionRequest;
  requestBody?: BodyRef;
  /** The store failed to keep the request body (a full disk): the transaction is Failed with this reason. */
  requestBodyLost?: Error;
  primary: RouteRun;
  /** What the client was sent (the primary's answer, or Junction's error answer). */
  response: TransactionResponse;
  others: OtherOutcome[];
  /** Present when the primary answered with a structured mediator response (used or malformed). */
  mediator?: MediatorOutcome;
}

/** A route's exchange as recorded; one still running has only its request (recovery marks it interrupted). */
function exchange({ run, body, bodyNotStored, pending }: OtherOutcome): ExchangeRecord {
  const record: ExchangeRecord = { name: run.route.name, request: run.request };
  if (pending === true) return record;
  if (run.answer !== undefined) {
    record.response = {
      status: run.answer.status,
      headers: storedHeaders(run.answer.headers),
      timestamp: run.answeredAt ?? new Date(),
      ...(body === undefined ? {} : { body }),
      ...(bodyNotStored === true ? { bodyNotStored } : {}),
    };
  }
  const error = run.error ?? run.brokeOff;
  if (error !== undefined) record.error = { message: error.message };
  return record;
}

/** What a route produced, for the status rules; one still running counts as failed (the status if it never finishes). */
function routeOutcome({ run, pending }: OtherOutcome): RouteOutcome {
  if (pending === true || run.answer === undefined) return {};
  return run.brokeOff === undefined ? { status: run.answer.status } : { status: run.answer.status, incomplete: true };
}

/** The other routes that were sent: a waiting route whose condition failed (route.ts `skipped`) is not part of the transaction. */
function sent(outcome: Outcome): OtherOutcome[] {
  return outcome.others.filter((o) => o.run.skipped === undefined);
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** What the primary route produced; a mediator's answer is judged by the response it gave the client, not by the 200 that carried it. */
function primaryOutcome(outcome: Outcome): RouteOutcome {
  const incomplete = outcome.primary.brokeOff === undefined ? {} : { incomplete: true };
  if (outcome.mediator !== undefined && outcome.mediator.malformed === undefined) return { status: outcome.response.status, ...incomplete };
  return outcome.primary.answer === undefined ? {} : { status: outcome.primary.answer.status, ...incomplete };
}

/** The final status, and whether the transaction can be re-run and should be retried automatically. */
export function finalState(channel: ChannelRecord, outcome: Outcome): { status: TransactionStatus; canRerun: boolean; autoRetry: boolean } {
  const { mediator } = outcome;
  const computed = computeStatus(primaryOutcome(outcome), sent(outcome).map(routeOutcome), mediator?.status);
  // A structured response that breaks the contract says nothing reliable about the outcome, so it is not a success;
  // nor is an answer the client did not get whole, whatever the mediator said.
  // A request body the store lost makes it Failed too: the sender was refused and will send it again.
  const status = mediator?.malformed === undefined && outcome.primary.brokeOff === undefined && outcome.requestBodyLost === undefined ? computed : 'Failed';
  // A POST that sent no body (Content-Length: 0) has nothing to lose, so it stays re-runnable.
  const { headers } = outcome.request;
  const sentBody = headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
  const bodyMissing = BODY_METHODS.has(outcome.request.method.toUpperCase()) && sentBody && (outcome.requestBody === undefined || outcome.requestBody.truncated);
  // Only a failure to reach the primary is retried; an upstream 5xx is an answer, not a connection problem.
  // A mediator's reported error is an internal service error, which SPEC.md retries.
  const autoRetry = channel.autoRetryEnabled && (outcome.primary.error instanceof RouteError || mediator?.reportedError === true);
  return { status, canRerun: !bodyMissing && outcome.requestBody?.truncated !== true, autoRetry };
}

/** The transaction's error: the primary's failure, the mediator's reported error, or why its answer was unusable. */
function transactionError(outcome: Outcome): TransactionRecord['error'] {
  if (outcome.requestBodyLost !== undefined) return { message: outcome.requestBodyLost.message };
  const primaryError = outcome.primary.error ?? outcome.primary.brokeOff;
  if (primaryError !== undefined) return { message: primaryError.message };
  if (outcome.mediator?.malformed !== undefined) return { message: `The mediator's answer could not be used: ${outcome.mediator.malformed}` };
  return outcome.mediator?.error;
}

/** What the primary answered, for the reason: a mediator's response as it gave it, else the route's own answer and its body's start. */
function answerFacts(outcome: Outcome): AnswerFacts | undefined {
  if (outcome.mediator !== undefined && outcome.mediator.malformed === undefined) return { status: outcome.response.status };
  const { answer, answerHead } = outcome.primary;
  if (answer === undefined) return undefined;
  const type = answer.headers['content-type'];
  const contentType = Array.isArray(type) ? type[0] : type;
  return { status: answer.status, ...(answerHead === undefined ? {} : { head: answerHead }), ...(contentType === undefined ? {} : { contentType }) };
}

/** The other routes as the reason reads them. */
function routeFacts(outcome: Outcome): RouteFacts[] {
  return sent(outcome).map(({ run, pending }) => {
    const error = pending === true ? 'did not finish' : (run.error ?? run.brokeOff)?.message;
    return { name: run.route.name, ...(run.answer === undefined ? {} : { status: run.answer.status }), ...(error === undefined ? {} : { error }) };
  });
}

/** Why the transaction did not succeed, decided once as it completes and stored with it (never read from bodies later). */
function reasonOf(outcome: Outcome, status: TransactionStatus, error: TransactionRecord['error']): string | undefined {
  const answer = answerFacts(outcome);
  return transactionReason({ status, ...(error === undefined ? {} : { error: error.message }), ...(answer === undefined ? {} : { answer }), routes: routeFacts(outcome) });
}

/** The mediator's orchestrations and properties, when it sent any. */
function mediatorSections(mediator: MediatorOutcome | undefined): Partial<TransactionRecord> {
  if (mediator === undefined) return {};
  return { orchestrations: mediator.orchestrations, ...(Object.keys(mediator.properties).length === 0 ? {} : { properties: mediator.properties }) };
}

/**
 * Writes the outcome: `final` completes the transaction; `answered` records what the client is being told while
 * other routes still run, keeping it Processing with `statusIfInterrupted` (what recovery makes it if they never
 * finish). `replacesAnswered` clears that field again on the final write.
 */
export function storeResponse(log: TransactionLog, id: string, channel: ChannelRecord, outcome: Outcome, stage: 'answered' | 'final', replacesAnswered = false): Promise<TransactionRecord | null> {
  const { status, canRerun, autoRetry } = finalState(channel, outcome);
  const request = outcome.requestBody === undefined ? outcome.request : { ...outcome.request, body: outcome.requestBody };
  const error = transactionError(outcome);
  // Decided on the final write only (while other routes still run, their outcome is not known yet), and not for the
  // common success, which has none.
  const reason = stage === 'final' && status !== 'Successful' ? reasonOf(outcome, status, error) : undefined;
  return log.update(id, {
    set: {
      ...(stage === 'final' ? { status } : { status: 'Processing', statusIfInterrupted: status }),
      request,
      response: outcome.response,
      routes: sent(outcome).map(exchange),
      canRerun,
      autoRetry,
      ...mediatorSections(outcome.mediator),
      ...(error === undefined ? {} : { error }),
      ...(reason === undefined ? {} : { reason }),
    },
    ...(replacesAnswered ? { unset: ['statusIfInterrupted'] } : {}),
  });
}
