/** Step 4: the first write of the transaction (Processing), before anything is sent downstream. */
import { storedHeaders } from '../domain/transactions/stored-headers.js';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';
import { StoreError, StoreWriteError } from '../storage/store.js';
import type { TransactionLog, TransactionRecord, TransactionRequest } from '../storage/transactions.js';
import type { RerunOrigin, TransactionContext } from './context.js';

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

/** Who and what a new transaction is about, whichever path (HTTP or message) stores it. */
export interface NewTransactionFields {
  id: string;
  channel: Pick<ChannelRecord, '_id'>;
  client: Pick<ClientRecord, '_id'> | null;
  clientIp: string;
  request: TransactionRequest;
  rerun?: RerunOrigin;
  /** Stored with the transaction from its first write (a console test message's `test: "true"`, issue 36). */
  properties?: Record<string, string>;
}

/** The Processing record of a new transaction; a re-run keeps its original client and links its parent. */
export function processingRecord(fields: NewTransactionFields): TransactionRecord {
  const { id, channel, client, clientIp, request, rerun, properties } = fields;
  return {
    _id: id,
    channelID: channel._id,
    ...(client === null ? {} : { clientID: client._id }),
    ...(rerun?.clientID === undefined ? {} : { clientID: rerun.clientID }),
    clientIP: clientIp,
    status: 'Processing',
    request,
    routes: [],
    orchestrations: [],
    canRerun: true,
    autoRetry: false,
    autoRetryAttempt: rerun?.autoRetryAttempt ?? 0,
    ...(rerun === undefined ? {} : { parentID: rerun.parentID }),
    ...(properties === undefined ? {} : { properties }),
  };
}

/**
 * Inserts the Processing transaction, whichever transport it came by; a failing store rejects with a StoreError
 * (answered 503, or an AR NAK, never 500).
 */
export function storeTransaction(log: TransactionLog, fields: NewTransactionFields): Promise<TransactionRecord> {
  return log.insert(processingRecord(fields)).catch((err: unknown) => {
    throw err instanceof StoreError ? err : new StoreWriteError('the transaction could not be stored', err);
  });
}
