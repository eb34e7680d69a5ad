/** How a request is reshaped for a downstream route (COMPAT.md "Transaction router facts"): path, headers, auth. */
import type { IncomingHttpHeaders } from 'node:http';
import { parsePathTransform } from './channel-rules.js';
import { cachedPattern } from '../util/safe-pattern.js';
import type { ChannelRoute } from '../../contracts/channels.js';

/** The header that carries the transaction id downstream and back to the client (OpenHIM's name, for compatibility). */
export const TRANSACTION_ID_HEADER = 'x-openhim-transactionid';

// Hop-by-hop headers describe one connection, not the message; a proxy must not pass them on (RFC 9110 7.6.1).
// `expect` too: Junction itself answers a client's `Expect: 100-continue`, and passing it on would ask the route to
// hold the body back for a second handshake (undici refuses to send it at all).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'expect']);

/** Applies a `s/from/to[/g]` transform to a path in linear time; an invalid or refused expression leaves the path unchanged. */
export function applyPathTransform(path: string, expression: string): string {
  const transform = parsePathTransform(expression);
  if (transform === null) return path;
  const from = cachedPattern(transform.from);
  return from.ok ? from.pattern.replace(path, transform.to, transform.global) : path;
}

/** The downstream path: the route's own path, else the transformed request path, else the request path. */
export function routePath(route: Pick<ChannelRoute, 'path' | 'pathTransform'>, requestPath: string): string {
  if (route.path !== undefined && route.path !== '') return route.path;
  if (route.pathTransform !== undefined && route.pathTransform !== '') return applyPathTransform(requestPath, route.pathTransform);
  return requestPath;
}

export interface OutgoingContext {
  route: Pick<ChannelRoute, 'username' | 'password' | 'forwardAuthHeader'>;
  clientIp: string;
  /** The Host the client used, for X-Forwarded-Host. */
  originalHost?: string;
  transactionId: string;
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Headers for the downstream request: hop-by-hop removed, client auth dropped unless the route forwards it, route auth added. */
export function outgoingHeaders(incoming: IncomingHttpHeaders, context: OutgoingContext): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    const lower = name.toLowerCase();
    const text = one(value);
    if (text === undefined || HOP_BY_HOP.has(lower)) continue;
    if (lower === 'authorization' && !context.route.forwardAuthHeader) continue;
    headers[lower] = text;
  }
  const { username, password } = context.route;
  if (username !== undefined && username !== '') {
    headers.authorization = `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
  }
  const forwardedFor = one(incoming['x-forwarded-for']);
  headers['x-forwarded-for'] = forwardedFor === undefined || forwardedFor === '' ? context.clientIp : `${forwardedFor}, ${context.clientIp}`;
  const originalHost = context.originalHost ?? one(incoming.host);
  if (originalHost !== undefined) {
    const forwardedHost = one(incoming['x-forwarded-host']);
    headers['x-forwarded-host'] = forwardedHost === undefined || forwardedHost === '' ? originalHost : `${forwardedHost}, ${originalHost}`;
  }
  headers[TRANSACTION_ID_HEADER] = context.transactionId;
  return headers;
}

/** Response headers to pass back to the client: hop-by-hop removed (the server sets its own framing). */
export function responseHeaders(upstream: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || HOP_BY_HOP.has(name.toLowerCase())) continue;
    headers[name.toLowerCase()] = value;
  }
  return headers;
}
