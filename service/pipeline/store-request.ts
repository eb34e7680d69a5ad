/** Step 4: the first write of the transaction (Processing), before anything is sent downstream. */
import type { IncomingHttpHeaders } from 'node:http';
import type { ChannelRecord } from '../storage/records.js';
import type { TransactionLog, TransactionRecord, TransactionRequest } from '../storage/transactions.js';
import type { TransactionContext } from './context.js';

// Credentials the client sent are never written to the log.
export const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'auth-token']);

/** The request headers as stored: one string per header, credentials masked. */
export function storedHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = SECRET_HEADERS.has(name.toLowerCase()) ? '********' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The request section of the transaction, without its body reference. */
export function requestSection(ctx: TransactionContext): TransactionRequest {
  return {
    host: ctx.req.headers.host?.split(':')[0],
    port: ctx.req.socket.localPort,
    path: ctx.path,
    querystring: ctx.querystring,
    method: ctx.method,
    headers: storedHeaders(ctx.req.headers),
    timestamp: ctx.receivedAt,
  };
}

/** Inserts the Processing transaction. */
export function storeRequest(ctx: TransactionContext, channel: ChannelRecord, log: TransactionLog): Promise<TransactionRecord> {
  return log.insert({
    _id: ctx.id,
    channelID: channel._id,
    ...(ctx.client === null ? {} : { clientID: ctx.client._id }),
    ...(ctx.rerun?.clientID === undefined ? {} : { clientID: ctx.rerun.clientID }),
    clientIP: ctx.clientIp,
    status: 'Processing',
    request: requestSection(ctx),
    routes: [],
    orchestrations: [],
    canRerun: true,
    autoRetry: false,
    autoRetryAttempt: ctx.rerun?.autoRetryAttempt ?? 0,
    ...(ctx.rerun === undefined ? {} : { parentID: ctx.rerun.parentID }),
  });
}
