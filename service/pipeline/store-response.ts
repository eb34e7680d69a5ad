/** Step 6: the second write: response, other routes, final status (SPEC.md table), re-run and retry flags. */
import { computeStatus } from '../domain/transaction-status.js';
import type { TransactionStatus } from '../domain/transaction-status.js';
import type { BodyRef } from '../storage/bodies/body-files.js';
import type { ChannelRecord } from '../storage/records.js';
import type { ExchangeRecord, TransactionLog, TransactionRecord, TransactionRequest, TransactionResponse } from '../storage/transactions.js';
import { RouteError } from '../routing/http.js';
import type { RouteRun } from './route.js';
import { storedHeaders } from './store-request.js';

export interface Outcome {
  request: TransactionRequest;
  requestBody?: BodyRef;
  primary: RouteRun;
  /** What the client was sent (the primary's answer, or Junction's error answer). */
  response: TransactionResponse;
  others: { run: RouteRun; body?: BodyRef }[];
}

function exchange(run: RouteRun, body?: BodyRef): ExchangeRecord {
  const record: ExchangeRecord = { name: run.route.name, request: run.request };
  if (run.answer !== undefined) {
    record.response = { status: run.answer.status, headers: storedHeaders(run.answer.headers), timestamp: run.answeredAt ?? new Date(), ...(body === undefined ? {} : { body }) };
  }
  if (run.error !== undefined) record.error = { message: run.error.message };
  return record;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The final status, and whether the transaction can be re-run and should be retried automatically. */
export function finalState(channel: ChannelRecord, outcome: Outcome): { status: TransactionStatus; canRerun: boolean; autoRetry: boolean } {
  const status = computeStatus(
    outcome.primary.answer === undefined ? {} : { status: outcome.primary.answer.status },
    outcome.others.map(({ run }) => (run.answer === undefined ? {} : { status: run.answer.status })),
  );
  const bodyMissing = BODY_METHODS.has(outcome.request.method.toUpperCase()) && (outcome.requestBody === undefined || outcome.requestBody.truncated);
  // Only a failure to reach the primary is retried; an upstream 5xx is an answer, not a connection problem.
  const autoRetry = channel.autoRetryEnabled && outcome.primary.error instanceof RouteError;
  return { status, canRerun: !bodyMissing && outcome.requestBody?.truncated !== true, autoRetry };
}

/** Completes the transaction in the log. */
export function storeResponse(log: TransactionLog, id: string, channel: ChannelRecord, outcome: Outcome): Promise<TransactionRecord | null> {
  const { status, canRerun, autoRetry } = finalState(channel, outcome);
  const request = outcome.requestBody === undefined ? outcome.request : { ...outcome.request, body: outcome.requestBody };
  return log.update(id, {
    set: {
      status,
      request,
      response: outcome.response,
      routes: outcome.others.map(({ run, body }) => exchange(run, body)),
      canRerun,
      autoRetry,
      ...(outcome.primary.error === undefined ? {} : { error: { message: outcome.primary.error.message } }),
    },
  });
}
