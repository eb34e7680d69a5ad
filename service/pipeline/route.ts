/**
 * Step 5: send the request to every enabled route at once. The body is fanned out to each route (and to its body
 * file) as it streams in, so memory does not grow with its size; a route that fails stops holding the others back.
 */
import { PassThrough } from 'node:stream';
import type { Writable } from 'node:stream';
import { outgoingHeaders, routePath } from '../domain/route-request.js';
import type { RouteRecord } from '../storage/records.js';
import type { TransactionRequest } from '../storage/transactions.js';
import type { HttpRouter, RouteAnswer } from '../routing/http.js';
import type { TransactionContext } from './context.js';
import { storedHeaders } from './store-request.js';

export interface RouteRun {
  route: RouteRecord;
  /** The request as sent downstream (credentials masked). */
  request: TransactionRequest;
  answer?: RouteAnswer;
  answeredAt?: Date;
  error?: Error;
}

export interface RouteStart {
  primary: Promise<RouteRun>;
  others: Promise<RouteRun>[];
}

/** True when the request carries a body (a stream body on a GET would make undici send chunked framing). */
export function hasBody(ctx: TransactionContext): boolean {
  const length = ctx.req.headers['content-length'];
  return ctx.req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Starts all enabled routes; `requestSink` receives a copy of the request body for the transaction log. */
export function startRoutes(ctx: TransactionContext, routes: readonly RouteRecord[], router: HttpRouter, timeoutMs: number, requestSink?: Writable): RouteStart {
  const withBody = hasBody(ctx);
  const branches = routes.map((route) => {
    const pipe = withBody ? new PassThrough() : undefined;
    // An error on one branch (its route failed mid-upload) must not surface as an unhandled error.
    pipe?.on('error', () => undefined);
    return { route, pipe };
  });
  for (const { pipe } of branches) if (pipe !== undefined) ctx.body.pipe(pipe);
  if (requestSink !== undefined) ctx.body.pipe(requestSink);
  else if (!withBody) ctx.body.resume();
  // A client that hangs up mid-upload would otherwise leave the routes and the body file waiting forever.
  // (Its 'error' is expected then; the close handler below turns it into a failed transaction.)
  ctx.req.on('error', () => undefined);
  ctx.req.once('close', () => {
    if (ctx.req.complete) return;
    const err = new Error('the client closed the connection before sending the whole request');
    for (const { pipe } of branches) pipe?.destroy(err);
    requestSink?.destroy(err);
  });

  const run = async (route: RouteRecord, pipe: PassThrough | undefined): Promise<RouteRun> => {
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
    if (route.type !== 'http') {
      pipe?.resume();
      return { route, request, error: new Error(`route ${route.name}: ${route.type} routes are sent by the TCP/MLLP transports, which this HTTP channel cannot use`) };
    }
    try {
      const answer = await router.send({
        target: { host: route.host, port: route.port, secured: route.secured },
        method: ctx.method,
        path,
        querystring: ctx.querystring,
        headers,
        body: pipe ?? null,
        timeoutMs,
      });
      return { route, request, answer, answeredAt: new Date() };
    } catch (err) {
      // Keep the source flowing for the other routes.
      pipe?.resume();
      return { route, request, error: err as Error };
    }
  };

  const runs = branches.map(({ route, pipe }) => ({ route, promise: run(route, pipe) }));
  const primary = runs.find((r) => r.route.primary) ?? runs[0];
  if (primary === undefined) throw new Error('a channel without enabled routes reached routing');
  return { primary: primary.promise, others: runs.filter((r) => r !== primary).map((r) => r.promise) };
}
