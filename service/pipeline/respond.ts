/**
 * Answers to the client: the primary route's response (rewritten when the channel asks), or a JSON error.
 *
 * What the client was told is what the log says (issue 12): the outcome is committed to the transaction log before
 * the answer's last byte leaves. A small answer is read whole, committed, then sent in one write; a streamed one is
 * sent as it arrives except its last chunk, which waits for the commit. A SIGKILL in between leaves a client without
 * a complete answer and a transaction that start-up recovery marks Failed, never a client with a 200 and a Failed
 * transaction.
 *
 * When the answer breaks off (the route resets or stalls mid-body, or the client leaves), the client did not get a
 * usable answer, so the transaction is Failed with the error recorded, whatever status line went out first: the same
 * rule recovery applies to a client that was never answered. If nothing was sent yet, the client gets Junction's own
 * error answer (500, or 504 for a stall) instead of a broken one.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { SMALL_BODY_BYTES } from '../domain/transactions/body-sizes.js';
import { REASON_BODY_BYTES } from '../domain/transactions/transaction-reason.js';
import { responseHeaders, TRANSACTION_ID_HEADER, applyPathTransform } from '../domain/channels/route-request.js';
import { rewriteBody, rewriteUrl } from '../domain/channels/url-rewrite.js';
import type { RewriteRule } from '../domain/channels/url-rewrite.js';
import { BodyStoreError } from '../storage/bodies/bodies.js';
import type { BodyRef, BodySink } from '../storage/bodies/bodies.js';
import { StoreError } from '../storage/store.js';
import type { ChannelRecord } from '../storage/records.js';
import type { TransactionResponse } from '../storage/transactions.js';
import type { RouteAnswer } from '../routing/http.js';
import type { TransactionContext } from './context.js';
import { clientGone, copy, failureOf, readUpTo } from '../streams/relay.js';
import type { MoveFailure, MoveOptions, Read } from '../streams/relay.js';

/** Sends an AppError as the JSON error shape; once headers went out it can only cut the connection. */
export function sendError(res: ServerResponse, error: AppError, transactionId?: string): void {
  if (res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(error.toBody());
  res.writeHead(error.status, {
    ...error.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(transactionId === undefined ? {} : { [TRANSACTION_ID_HEADER]: transactionId }),
  });
  res.end(body);
}

/** The channel's rewrite rules: its own first, then automatic ones for its primary routes (user rules override). */
export function rewriteRules(ctx: TransactionContext, channel: ChannelRecord): RewriteRule[] {
  if (!channel.rewriteUrls) return [];
  const toHost = ctx.req.headers.host?.replace(/:\d+$/, '') ?? 'localhost';
  const toPort = ctx.req.socket.localPort ?? 0;
  const toProtocol = ctx.secure ? ('https' as const) : ('http' as const);
  const rules: RewriteRule[] = channel.rewriteUrlsConfig.map((rule) => ({
    fromHost: rule.fromHost,
    fromPort: rule.fromPort,
    toHost: rule.toHost,
    toPort: rule.toPort,
    toProtocol,
    ...(rule.pathTransform === undefined ? {} : { transformPath: (path: string) => applyPathTransform(path, rule.pathTransform ?? '') }),
  }));
  if (channel.addAutoRewriteRules) {
    for (const route of channel.routes) {
      if (route.primary && route.status === 'enabled') rules.push({ fromHost: route.host, fromPort: route.port, toHost, toPort, toProtocol });
    }
  }
  return rules;
}

function isRewritable(contentType: string | string[] | undefined): boolean {
  const type = (Array.isArray(contentType) ? contentType[0] : contentType)?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type.endsWith('json') || type.endsWith('xml');
}

/** Records the client's answer durably; resolves once committed. `brokeOff` says why the answer did not get through whole. */
export type Commit = (response: TransactionResponse, brokeOff?: Error) => Promise<void>;

/** What answering the client needs besides the answer itself. */
export interface Answering extends MoveOptions {
  ctx: TransactionContext;
  channel: ChannelRecord;
  /** Largest body rewritten (and stored). */
  capBytes: number;
  /** The response's body file, when bodies are stored. */
  sink?: BodySink;
  logger: Logger;
  /** Describes a failure of the route's body for the record (its origin, the timeout). */
  brokeOff: (err: unknown) => Error;
  commit: Commit;
  /** Rejects (a StoreError) when the request body was lost, before a streamed answer's status line commits to success. */
  requestStored?: () => Promise<void>;
  /** Told the first bytes of an error answer's body before the outcome is committed, for the transaction's reason. */
  noteHead?: (head: Buffer) => void;
}

/** The first `limit` bytes of what was read, copying no more than that. */
export function headOf(chunks: readonly Buffer[], limit = REASON_BODY_BYTES): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (const chunk of chunks) {
    if (size >= limit) break;
    const part = chunk.length <= limit - size ? chunk : chunk.subarray(0, limit - size);
    kept.push(part);
    size += part.length;
  }
  return Buffer.concat(kept, size);
}

/** What the transaction records of the answer when it goes out: the upstream's status and headers as stored. */
export interface Shown {
  status: number;
  headers: Record<string, string>;
  timestamp: Date;
}

/** What was kept of an answer's body: its reference, or the mark that the store could not keep it. */
export type StoredBody = { body?: BodyRef; bodyNotStored?: true };

/**
 * The stored body's reference. The answer goes on when the store fails to keep it (the sender already has it), but
 * the record says so (`bodyNotStored`) and the error is logged; a body left out for another reason (its stream broke
 * off, and the exchange records why) is only logged.
 */
export async function storedBody(sink: BodySink | undefined, logger: Logger, transactionId: string): Promise<StoredBody> {
  if (sink === undefined) return {};
  try {
    return { body: await sink.done };
  } catch (err) {
    const lost = err instanceof BodyStoreError;
    logger.error({ err, transactionId }, lost ? 'a response body could not be stored (the store failed); the transaction records it as not stored' : 'a body could not be stored; the transaction is recorded without it');
    return lost ? { bodyNotStored: true } : {};
  }
}

/** The error answer for a failure inside Junction: 503 when the store failed (the sender may try again), else 500. */
export function internalFailure(err: unknown): AppError {
  return err instanceof StoreError ? new AppError('STORE_UNAVAILABLE', 'Junction could not store the transaction; send it again later') : new AppError('INTERNAL');
}

/** Commits, and if the commit fails answers with Junction's own error instead (the log then never says otherwise). */
async function commitFirst(a: Answering, response: TransactionResponse, brokeOff?: Error): Promise<void> {
  try {
    await a.commit(response, brokeOff);
  } catch (err) {
    sendError(a.ctx.res, internalFailure(err), a.ctx.id);
    throw err;
  }
}

function failureError(a: Answering, failure: MoveFailure): Error {
  return failure.side === 'source' ? a.brokeOff(failure.error) : failure.error;
}

/** The client gets Junction's error answer, after the log recorded it. */
export async function answerWithError(a: Answering, error: AppError, brokeOff?: Error): Promise<void> {
  await commitFirst(a, { status: error.status, headers: {}, timestamp: new Date() }, brokeOff);
  sendError(a.ctx.res, error, a.ctx.id);
}

/**
 * The answer broke off while it was being read, before anything was sent. A route's failure is answered with
 * Junction's own error; a client that left (or was given up on) gets nothing more, and the upstream's answer is
 * recorded with why it did not reach the client.
 */
export async function answerBrokenRead(a: Answering, shown: Shown, failure: MoveFailure): Promise<void> {
  const error = failureError(a, failure);
  a.sink?.stream.destroy(error);
  if (failure.side === 'source') {
    await answerWithError(a, routeFailure(error), error);
    return;
  }
  a.ctx.res.destroy();
  await a.commit(shown, error);
}

/** Sends an answer read whole: stored, committed, then written once. */
async function sendWhole(a: Answering, shown: Shown, headers: Record<string, string | string[]>, body: Buffer): Promise<void> {
  const { res } = a.ctx;
  a.sink?.stream.end(body);
  const response: TransactionResponse = { ...shown, ...(await storedBody(a.sink, a.logger, a.ctx.id)) };
  if (clientGone(res)) {
    await a.commit(response, failureOf(undefined, true, a.signal).error);
    return;
  }
  await commitFirst(a, response);
  res.writeHead(shown.status, headers);
  res.end(body);
}

/** Streams an answer on as it arrives, its last chunk held back until the outcome is committed. */
async function sendStreamed(a: Answering, shown: Shown, headers: Record<string, string | string[]>, source: Readable, prefix: readonly Buffer[]): Promise<void> {
  const { res } = a.ctx;
  try {
    await a.requestStored?.();
  } catch (err) {
    a.sink?.stream.destroy(err as Error);
    source.destroy();
    sendError(res, internalFailure(err), a.ctx.id);
    throw err;
  }
  res.writeHead(shown.status, headers);
  const copied = await copy(source, prefix, { ...a, res, sink: a.sink?.stream });
  // What arrived is stored, up to where it broke.
  a.sink?.stream.end(copied.last);
  // A broken answer must not look complete to the client: a chunked one would end cleanly on res.end().
  if (copied.failure !== undefined) res.destroy();
  const response: TransactionResponse = { ...shown, ...(await storedBody(a.sink, a.logger, a.ctx.id)) };
  if (copied.failure !== undefined) {
    await a.commit(response, failureError(a, copied.failure));
    return;
  }
  await commitFirst(a, response);
  res.end(copied.last);
}

/**
 * Sends the primary's answer to the client and its body file, committing the outcome before the last byte; `read` is
 * what was already read of the body (a structured response passed through raw). Rejects only when the commit fails.
 */
export async function sendPrimary(a: Answering, answer: RouteAnswer, shown: Shown, read?: Read): Promise<void> {
  const { ctx, channel, capBytes } = a;
  const headers = responseHeaders(answer.headers);
  headers[TRANSACTION_ID_HEADER] = ctx.id;
  const rules = rewriteRules(ctx, channel);
  if (rules.length > 0 && typeof headers.location === 'string') headers.location = rewriteUrl(headers.location, rules);
  const rewrite = rules.length > 0 && isRewritable(headers['content-type']);
  const length = Number(answer.headers['content-length']);
  // Small answers are read whole and written once, to the client and the body file: far cheaper than two pipes.
  // Rewriting needs the whole body too, so it is read up to the body cap; a longer body passes unchanged.
  const small = Number.isInteger(length) && length <= SMALL_BODY_BYTES;
  // An error answer's first bytes are the transaction's reason (`500: database is locked`): a streamed one is read that
  // far before it is passed on, which only error answers pay for.
  const failing = answer.status >= 400;
  let whole = read;
  if (whole === undefined && (rewrite || small || failing)) {
    whole = await readUpTo(answer.body, rewrite ? capBytes : small ? SMALL_BODY_BYTES : REASON_BODY_BYTES, { res: ctx.res, touch: a.touch, signal: a.signal });
  }
  if (whole?.failure !== undefined) {
    await answerBrokenRead(a, shown, whole.failure);
    return;
  }
  if (failing && whole !== undefined) a.noteHead?.(headOf(whole.chunks));
  if (whole?.ended === true) {
    let body = Buffer.concat(whole.chunks, whole.size);
    if (rewrite) {
      body = Buffer.from(rewriteBody(body.toString('utf8'), headers['content-type'] as string, rules));
      headers['content-length'] = String(body.length);
    }
    await sendWhole(a, shown, headers, body);
    return;
  }
  await sendStreamed(a, shown, headers, answer.body, whole?.chunks ?? []);
}

/** The error a failed primary route gives the client: 504 on a timeout, 500 otherwise. */
export function routeFailure(error: Error & { kind?: string }): AppError {
  return error.kind === 'timeout' ? new AppError('ROUTE_TIMEOUT', error.message) : new AppError('ROUTE_FAILED', error.message);
}
