/**
 * Transactions written through the API (`POST /transactions`, `PUT /transactions/:id`): turning the checked wire input
 * into the parts of a transaction record, with each body still as text to be stored, and every problem found listed
 * at once, so nothing is written when anything is refused. Pure: the caller passes the clock and the stored record.
 */
import type { ErrorInput, ExchangeInput, RequestInput, ResponseInput, TimestampInput, TransactionUpdate } from '../../contracts/transactions.js';
import type { ValidationProblem } from '../../contracts/api.js';
import { storedHeaders } from './stored-headers.js';
import type { ExchangePart, RequestPart, ResponsePart } from './transaction-parts.js';
import type { TransactionStatus } from './transaction-status.js';

/** Transaction ids hold the request time in 32-bit epoch seconds (storage/transaction-ids.ts). */
const LAST_ID_MS = 2 ** 32 * 1000;

/** A body of a written part: text to store, the stored body (`B`, the body store's reference) to keep, or none. */
export type BodyDraft<B> = { text: string } | { keep: B } | null;

/** A request or response without its body, and what becomes of the body. */
export interface PartDraft<P extends RequestPart<unknown> | ResponsePart<unknown>> {
  part: Omit<P, 'body'>;
  body: BodyDraft<NonNullable<P['body']>>;
  /** `body.request`, `body.routes.0.response`…: where the part was in the API body. */
  at: string;
}

export interface ExchangeDraft<B> {
  name: string;
  request: PartDraft<RequestPart<B>>;
  response?: PartDraft<ResponsePart<B>>;
  error?: { message: string; stack?: string };
}

/** Collects the problems of one write. */
export class Problems {
  readonly list: ValidationProblem[] = [];
  add(path: string, message: string): void {
    this.list.push({ path, message });
  }
}

/** A timestamp as a Date, or null (with a problem) when it is not a usable date. */
export function toDate(value: TimestampInput, at: string, problems: Problems): Date | null {
  const date = new Date(value);
  const ms = date.getTime();
  if (Number.isNaN(ms) || ms < 0 || ms >= LAST_ID_MS) {
    problems.add(at, 'must be an ISO 8601 date or epoch milliseconds between 1970 and 2106');
    return null;
  }
  return date;
}

function headers(value: RequestInput['headers']): Record<string, string> {
  // OpenHIM's empty value for "no headers" is ''. Stored like a proxied request's: lower-case, credentials masked.
  return value === undefined || value === null || value === '' ? {} : storedHeaders(value);
}

/** The body of a part: new text, the stored body when the caller sent none or sent back a cut or removed one, or none. */
function bodyDraft<B extends object>(input: RequestInput | ResponseInput, stored: B | undefined): BodyDraft<B> {
  const marked = input.bodyTruncated === true || input.bodyRemoved === true;
  if (typeof input.body === 'string' && !marked) return { text: input.body };
  return stored === undefined ? null : { keep: stored };
}

/** A request as written; fields left out keep the stored request's values when there is one. */
export function requestDraft<B extends object>(input: RequestInput, at: string, base: RequestPart<B> | undefined, now: Date, problems: Problems): PartDraft<RequestPart<B>> {
  const timestamp = input.timestamp === undefined || input.timestamp === null ? (base?.timestamp ?? now) : (toDate(input.timestamp, `${at}.timestamp`, problems) ?? now);
  const part: Omit<RequestPart<B>, 'body'> = {
    path: input.path ?? base?.path ?? '',
    querystring: input.querystring ?? base?.querystring ?? '',
    method: (input.method ?? base?.method ?? '').toUpperCase(),
    headers: input.headers === undefined ? (base?.headers ?? {}) : headers(input.headers),
    timestamp,
  };
  const host = input.host === undefined ? base?.host : (input.host ?? undefined);
  if (host !== undefined) part.host = host;
  const port = input.port === undefined ? base?.port : input.port === null ? undefined : Number(input.port);
  if (port !== undefined) {
    if (port < 1 || port > 65_535) problems.add(`${at}.port`, 'must be from 1 to 65535');
    part.port = port;
  }
  return { part, body: bodyDraft(input, base?.body), at };
}

/** A response as written (a whole response: OpenHIM's model has no partial one). */
export function responseDraft<B extends object>(input: ResponseInput, at: string, base: ResponsePart<B> | undefined, now: Date, problems: Problems): PartDraft<ResponsePart<B>> {
  const timestamp = input.timestamp === undefined || input.timestamp === null ? now : (toDate(input.timestamp, `${at}.timestamp`, problems) ?? now);
  return { part: { status: Number(input.status), headers: headers(input.headers), timestamp }, body: bodyDraft(input, base?.body), at };
}

export function errorOf(input: ErrorInput): { message: string; stack?: string } {
  return typeof input.stack === 'string' ? { message: input.message, stack: input.stack } : { message: input.message };
}

/** A route or orchestration as written; `base` is the stored one it replaces (same place, same name), whose bodies it may keep. */
export function exchangeDraft<B extends object>(input: ExchangeInput, at: string, base: ExchangePart<B> | undefined, now: Date, problems: Problems): ExchangeDraft<B> {
  const same = base?.name === input.name ? base : undefined;
  const draft: ExchangeDraft<B> = { name: input.name, request: requestDraft(input.request, `${at}.request`, same?.request, now, problems) };
  if (input.response !== undefined && input.response !== null) draft.response = responseDraft(input.response, `${at}.response`, same?.response, now, problems);
  if (input.error !== undefined && input.error !== null) draft.error = errorOf(input.error);
  return draft;
}

/** `$push`'s value: one exchange or a list of them. */
export function pushedList(value: ExchangeInput | ExchangeInput[] | undefined): ExchangeInput[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * True when a write reports an error: at the top level, in a route or in an orchestration, given or pushed. As for a
 * mediator's answer (domain/channels/mediator-response.ts), that queues an auto retry on a channel that has it on.
 */
export function reportsError(input: Pick<TransactionUpdate, 'error' | 'routes' | 'orchestrations' | '$push'>): boolean {
  const failed = (list: readonly ExchangeInput[] | null | undefined) => (list ?? []).some((e) => e.error !== undefined && e.error !== null);
  return (
    (input.error !== undefined && input.error !== null) ||
    failed(input.routes) ||
    failed(input.orchestrations) ||
    failed(pushedList(input.$push?.routes)) ||
    failed(pushedList(input.$push?.orchestrations))
  );
}

/** True when a write moves a transaction out of Processing: the moment "a transaction completed" is announced. */
export function completes(before: TransactionStatus | null, after: TransactionStatus): boolean {
  return (before === null || before === 'Processing') && after !== 'Processing';
}
