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
  /** Set when this transaction re-runs an earlier one (a user's re-run or an auto retry); see replay.ts. */
  rerun?: RerunOrigin;
  /** Properties the transaction is stored with from its first write (a console test message's `test: "true"`). */
  properties?: Record<string, string>;
}

/** What a re-run keeps of the transaction it repeats. */
export interface RerunOrigin {
  parentID: string;
  /** The original client's `_id`: kept even though a re-run skips client authentication. */
  clientID?: string;
  /** 0 for a user's re-run; the attempt number for an auto retry. */
  autoRetryAttempt: number;
}

/** Splits a request target into path and query string. */
export function splitTarget(url: string | undefined): { path: string; querystring: string } {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return q < 0 ? { path: target, querystring: '' } : { path: target.slice(0, q), querystring: target.slice(q + 1) };
}
