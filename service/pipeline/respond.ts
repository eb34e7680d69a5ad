/** Answers to the client: the primary route's response (rewritten when the channel asks), or a JSON error. */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { AppError } from '../errors.js';
import { responseHeaders, TRANSACTION_ID_HEADER, applyPathTransform } from '../domain/route-request.js';
import { rewriteBody, rewriteUrl } from '../domain/url-rewrite.js';
import type { RewriteRule } from '../domain/url-rewrite.js';
import type { ChannelRecord } from '../storage/records.js';
import type { RouteAnswer } from '../routing/http.js';
import type { TransactionContext } from './context.js';

/** Sends an AppError as the JSON error shape; a no-op when headers already went out. */
export function sendError(res: ServerResponse, error: AppError, transactionId?: string): void {
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

/** Streams the primary's answer to the client and to its body file; returns when both are done. */
export async function sendPrimary(ctx: TransactionContext, channel: ChannelRecord, answer: RouteAnswer, sink: Writable | undefined, capBytes: number): Promise<void> {
  const { res } = ctx;
  const headers = responseHeaders(answer.headers);
  headers[TRANSACTION_ID_HEADER] = ctx.id;
  const rules = rewriteRules(ctx, channel);
  if (rules.length > 0 && typeof headers.location === 'string') headers.location = rewriteUrl(headers.location, rules);
  if (rules.length > 0 && isRewritable(headers['content-type'])) {
    // Rewriting needs the whole body, so it is read only up to the body cap; a longer body passes unchanged.
    const iterator = (answer.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const chunks: Buffer[] = [];
    let size = 0;
    for (let next = await iterator.next(); next.done !== true; next = size > capBytes ? { done: true, value: undefined } : await iterator.next()) {
      chunks.push(next.value);
      size += next.value.length;
    }
    if (size <= capBytes) {
      const text = Buffer.from(rewriteBody(Buffer.concat(chunks).toString('utf8'), headers['content-type'] as string, rules));
      headers['content-length'] = String(text.length);
      res.writeHead(answer.status, headers);
      res.end(text);
      sink?.end(text);
      return;
    }
    res.writeHead(answer.status, headers);
    const rest = Readable.from((async function* () {
      yield* chunks;
      for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) yield next.value;
    })());
    const toClient = pipeline(rest, res).catch(() => undefined);
    if (sink !== undefined) rest.pipe(sink);
    await toClient;
    return;
  }
  const length = Number(answer.headers['content-length']);
  if (Number.isInteger(length) && length <= SMALL_BODY_BYTES) {
    // Small answers are read whole and written once, to the client and the body file: far cheaper than two pipes.
    let body: Buffer;
    try {
      body = await readAll(answer.body, SMALL_BODY_BYTES);
    } catch (err) {
      sink?.destroy(err as Error);
      res.destroy();
      return;
    }
    res.writeHead(answer.status, headers);
    res.end(body);
    sink?.end(body);
    return;
  }
  res.writeHead(answer.status, headers);
  const toClient = pipeline(answer.body, res).catch(() => undefined);
  if (sink !== undefined) answer.body.pipe(sink);
  await toClient;
}

/** Answers declaring at most this many bytes are read whole before they are sent on. */
const SMALL_BODY_BYTES = 64 * 1024;

async function readAll(body: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error('the route sent more than its Content-Length');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Reads a route's response body into its body file, or discards it when bodies are not stored. */
export async function drainResponse(answer: RouteAnswer, sink: Writable | undefined): Promise<void> {
  if (sink === undefined) {
    answer.body.resume();
    await new Promise<void>((resolve) => answer.body.once('close', resolve));
    return;
  }
  await pipeline(answer.body, sink);
}

/** The error a failed primary route gives the client: 504 on a timeout, 500 otherwise. */
export function routeFailure(error: Error & { kind?: string }): AppError {
  return error.kind === 'timeout' ? new AppError('ROUTE_TIMEOUT', error.message) : new AppError('ROUTE_FAILED', error.message);
}
