/** Step 4: the first write of the transaction (Processing), before anything is sent downstream. */
import { storedHeaders } from '../domain/stored-headers.js';
import type { ChannelRecord } from '../storage/records.js';
import type { TransactionLog, TransactionRecord, TransactionRequest } from '../storage/transactions.js';
import type { TransactionContext } from './context.js';

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
