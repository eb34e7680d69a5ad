/**
 * Step 5: send the request to every enabled route at once. The body is fanned out to each route (and to its body
 * file) as it streams in, so memory does not grow with its size; a route that fails stops holding the others back.
 * A secondary route that waits for the primary (OpenHIM's `waitPrimaryResponse`) is sent once the primary has
 * answered, and only when that answer's status passes its `statusCodesCheck`; it gets the body held for it (a small
 * body is held anyway; a streamed one is held up to WAITING_ROUTE_BODY_BYTES, beyond which that route fails).
 *
 * Every transport fans out here: HTTP requests stream (`startRoutes`), whole messages of tcp and tls channels and
 * their re-runs are one buffer (`startWhole`). Each route goes to the sender its type names in the route kind table
 * (routing/senders.ts); what a transport does with the answers is its own (respond.ts, message.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Writable } from 'node:stream';
import { SMALL_BODY_BYTES } from '../domain/transactions/body-sizes.js';
import { outgoingHeaders, routePath } from '../domain/channels/route-request.js';
import { storedHeaders } from '../domain/transactions/stored-headers.js';
import type { RouteRecord } from '../storage/records.js';
import type { TransactionRequest } from '../storage/transactions.js';
import type { RouteAnswer } from '../routing/http.js';
import type { RouteSenders } from '../routing/senders.js';
import { readUpTo, REQUEST_CUT_SHORT } from '../streams/relay.js';
import type { Read } from '../streams/relay.js';
import type { TransactionContext } from './context.js';
import { statusPasses } from '../domain/channels/status-codes-check.js';

/** The most a streamed request body is held in memory for routes that wait for the primary. */
export const WAITING_ROUTE_BODY_BYTES = 16 * 1024 * 1024;

/** True for a secondary route that is sent only after the primary answered. */
const waits = (route: RouteRecord): boolean => !route.primary && route.waitPrimaryResponse === true;

/** Why a waiting route is not sent after this primary run, or undefined when it may be. */
function skipReason(route: RouteRecord, primary: RouteRun): string | undefined {
  if (primary.answer === undefined) return 'the primary route did not answer';
  if (!statusPasses(route.statusCodesCheck, primary.answer.status)) return `the primary route answered ${primary.answer.status}, which its statusCodesCheck (${route.statusCodesCheck ?? ''}) does not allow`;
  return undefined;
}

/** Holds a streamed body for the waiting routes (without slowing the others), up to the limit. */
function holdBody(body: TransactionContext['body']): Promise<Buffer | Error> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    body.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > WAITING_ROUTE_BODY_BYTES) {
        over = true;
        chunks.length = 0;
      } else chunks.push(chunk);
    });
    body.once('end', () => resolve(over ? new Error(`the request body is larger than the ${WAITING_ROUTE_BODY_BYTES} bytes held for a route that waits for the primary`) : Buffer.concat(chunks, size)));
    body.once('error', (err: Error) => resolve(err));
    body.once('close', () => resolve(new Error('the request body ended before it was complete')));
  });
}

export interface RouteRun {
  route: RouteRecord;
  /** The request as sent downstream (credentials masked). */
  request: TransactionRequest;
  answer?: RouteAnswer;
  answeredAt?: Date;
  /** The route could not be reached, or did not answer in time: there is no answer. */
  error?: Error;
  /**
   * The answer came but did not get through whole: its body broke off (reset, stalled), or, for the primary, the
   * client left before it had all of it. Set while the body is moved (respond.ts, streams/relay.ts).
   */
  brokeOff?: Error;
  /**
   * The route waits for the primary (`waitPrimaryResponse`) and was not sent: the primary's answer failed its
   * `statusCodesCheck`, or there was none. Such a route is left out of the transaction's routes and its status.
   */
  skipped?: string;
  /**
   * The first bytes of an error answer's body (a status of 400 or more, or a negative HL7 ACK), kept while the body
   * moves (respond.ts, message.ts) for the transaction's reason (domain/transactions/transaction-reason.ts).
   */
  answerHead?: Buffer;
}

export interface RouteStart {
  primary: Promise<RouteRun>;
  /** Each other route as it was started (`started`, with no answer yet), and its run once it answered or failed. */
  others: { started: RouteRun; run: Promise<RouteRun> }[];
}

/**
 * What route fan-out reads of the inbound transaction, whatever its transport: an HTTP request's context is one as it
 * is, a message is described as a POST of its bytes to `/`.
 */
export interface Outbound {
  id: string;
  clientIp: string;
  method: string;
  path: string;
  querystring: string;
  req: { headers: IncomingHttpHeaders };
}

/** The downstream path and headers of a route, and the request as stored (credentials masked). */
export interface Prepared {
  path: string;
  headers: Record<string, string>;
  request: TransactionRequest;
}

export interface RoutingOptions {
  /** Milliseconds to wait for each route's headers, and at most between two chunks of its body. */
  timeoutMs: number;
  /** Aborts every route of the transaction (its stall watchdog). */
  signal: AbortSignal;
  /** Called on every chunk of the request body and every answer, so the watchdog sees progress. */
  touch: () => void;
  /** The sender of each route kind. */
  senders: RouteSenders;
  /** How the transport records a route's request, when not as an HTTP request would have it (`routeRequest`). */
  prepare?: (route: RouteRecord) => Prepared;
  /**
   * What the transport makes of a route's run once it answered (a message channel reads the answer whole), before a
   * route waiting for the primary looks at it. Must not reject.
   */
  settle?: (run: RouteRun) => Promise<RouteRun>;
}

/** True when the request carries a body (a stream body on a GET would make undici send chunked framing). */
export function hasBody(ctx: TransactionContext): boolean {
  const length = ctx.req.headers['content-length'];
  return ctx.req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function declaredSmall(ctx: TransactionContext): boolean {
  if (ctx.req.headers['transfer-encoding'] !== undefined) return false;
  const length = Number(ctx.req.headers['content-length']);
  return Number.isInteger(length) && length > 0 && length <= SMALL_BODY_BYTES;
}

/** A small body read whole, or why it could not be: the client hung up first or sent more than it declared. */
function wholeBody(read: Read): Buffer | Error {
  if (read.failure !== undefined) return read.failure.error;
  return read.ended ? Buffer.concat(read.chunks, read.size) : new Error('the request body is longer than its Content-Length');
}

/** Starts all enabled routes; `requestSink` receives a copy of the request body for the transaction log. */
export function startRoutes(ctx: TransactionContext, routes: readonly RouteRecord[], options: RoutingOptions, requestSink?: Writable): RouteStart {
  if (declaredSmall(ctx)) return startBuffered(ctx, routes, options, requestSink);
  const withBody = hasBody(ctx);
  const waiting = routes.filter(waits);
  const held = waiting.length > 0 && withBody ? holdBody(ctx.body) : Promise.resolve(null);
  const branches = routes.filter((r) => !waits(r)).map((route) => {
    const pipe = withBody ? new PassThrough() : undefined;
    // An error on one branch (its route failed mid-upload) must not surface as an unhandled error.
    pipe?.on('error', () => undefined);
    return { route, pipe };
  });
  for (const { pipe } of branches) if (pipe !== undefined) ctx.body.pipe(pipe);
  if (requestSink !== undefined) ctx.body.pipe(requestSink);
  else if (!withBody) ctx.body.resume();
  if (withBody) ctx.body.on('data', options.touch);
  // A client that hangs up mid-upload would otherwise leave the routes and the body file waiting forever.
  // (Its 'error' is expected then; the close handler below turns it into a failed transaction.)
  ctx.req.on('error', () => undefined);
  ctx.req.once('close', () => {
    if (ctx.req.complete) return;
    const err = new Error('the client closed the connection before sending the whole request');
    for (const { pipe } of branches) pipe?.destroy(err);
    requestSink?.destroy(err);
  });

  const runs = branches.map(({ route, pipe }) => {
    const prepared = routeRequest(ctx, route);
    return { route, prepared, promise: runRoute(ctx, route, prepared, options, pipe ?? null) };
  });
  return split(ctx, runs, waiting, options, (route, prepared) => held.then((body): RouteRun | Promise<RouteRun> => (body instanceof Error ? { route, request: prepared.request, error: body } : runRoute(ctx, route, prepared, options, body))));
}

/** The small-body path: one read, then the same buffer to every route and to the body file. */
function startBuffered(ctx: TransactionContext, routes: readonly RouteRecord[], options: RoutingOptions, requestSink?: Writable): RouteStart {
  ctx.req.on('error', () => undefined);
  const body = readUpTo(ctx.body, SMALL_BODY_BYTES, { touch: options.touch, closedEarly: REQUEST_CUT_SHORT }).then(wholeBody);
  void body.then((whole) => (whole instanceof Error ? requestSink?.destroy(whole) : requestSink?.end(whole)));
  const send = (route: RouteRecord, prepared: Prepared): Promise<RouteRun> =>
    body.then((whole): RouteRun | Promise<RouteRun> => (whole instanceof Error ? { route, request: prepared.request, error: whole } : runRoute(ctx, route, prepared, options, whole)));
  const runs = routes.filter((r) => !waits(r)).map((route) => {
    const prepared = routeRequest(ctx, route);
    return { route, prepared, promise: send(route, prepared) };
  });
  return split(ctx, runs, routes.filter(waits), options, send);
}

/**
 * A body already whole in memory (a tcp or tls channel's message, or its re-run): the same buffer to every route.
 * Storing it is the caller's, as it has the bytes already.
 */
export function startWhole(out: Outbound, body: Buffer, routes: readonly RouteRecord[], options: RoutingOptions): RouteStart {
  const send = (route: RouteRecord, prepared: Prepared): Promise<RouteRun> => runRoute(out, route, prepared, options, body);
  const runs = routes.filter((r) => !waits(r)).map((route) => {
    const prepared = options.prepare?.(route) ?? routeRequest(out, route);
    return { route, prepared, promise: send(route, prepared) };
  });
  return split(out, runs, routes.filter(waits), options, send);
}

type Run = { route: RouteRecord; prepared: Prepared; promise: Promise<RouteRun> };

/** The primary's run and the others', the waiting routes sent (by `send`) only once the primary's answer allows it. */
function split(out: Outbound, runs: Run[], waiting: readonly RouteRecord[], options: RoutingOptions, send: (route: RouteRecord, prepared: Prepared) => Promise<RouteRun>): RouteStart {
  const primary = runs.find((r) => r.route.primary) ?? runs[0];
  if (primary === undefined) throw new Error('a channel without enabled routes reached routing');
  const after = waiting.map((route): Run => {
    const prepared = options.prepare?.(route) ?? routeRequest(out, route);
    const promise = primary.promise.then((answered): RouteRun | Promise<RouteRun> => {
      const skipped = skipReason(route, answered);
      return skipped === undefined ? send(route, prepared) : { route, request: prepared.request, skipped };
    });
    return { route, prepared, promise };
  });
  return {
    primary: primary.promise,
    others: [...runs.filter((r) => r !== primary), ...after].map((r) => ({ started: { route: r.route, request: r.prepared.request }, run: r.promise })),
  };
}

/** The downstream path and headers of a route, and the request as stored (credentials masked). */
export function routeRequest(ctx: Outbound, route: RouteRecord): Prepared {
  const path = routePath(route, ctx.path);
  const headers = outgoingHeaders(ctx.req.headers, { route, clientIp: ctx.clientIp, transactionId: ctx.id });
  const request: TransactionRequest = {
    host: route.host,
    port: route.port,
    path,
    querystring: ctx.querystring,
    method: ctx.method,
    headers: storedHeaders(headers),
    timestamp: new Date(),
  };
  return { path, headers, request };
}

/** Sends to one route through its kind's sender. Never rejects: a failure is the run's `error`. */
async function runRoute(out: Outbound, route: RouteRecord, prepared: Prepared, options: RoutingOptions, body: PassThrough | Buffer | null): Promise<RouteRun> {
  const { path, headers, request } = prepared;
  let run: RouteRun;
  try {
    const answer = await options.senders[route.type].send({
      target: { host: route.host, port: route.port, secured: route.secured },
      method: out.method,
      path,
      querystring: out.querystring,
      headers,
      body,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      name: route.name,
      touch: options.touch,
    });
    options.touch();
    run = { route, request, answer, answeredAt: new Date() };
  } catch (err) {
    // Keep the source flowing for the other routes.
    if (body instanceof PassThrough) body.resume();
    return { route, request, error: err as Error };
  }
  return options.settle === undefined ? run : options.settle(run);
}
