/** What the pipeline knows about one transaction as it moves through the steps. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';

export interface TransactionContext {
  id: string;
  receivedAt: Date;
  req: IncomingMessage;
  res: ServerResponse;
  /** Arrived on the HTTPS port. */
  secure: boolean;
  clientIp: string;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query string without the `?`. */
  querystring: string;
  client: ClientRecord | null;
  channel?: ChannelRecord;
  /** Where the request body is read from: the live request, or a buffered copy when matching needed the body. */
  body: Readable;
}

/** Splits a request target into path and query string. */
export function splitTarget(url: string | undefined): { path: string; querystring: string } {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return q < 0 ? { path: target, querystring: '' } : { path: target.slice(0, q), querystring: target.slice(q + 1) };
}
