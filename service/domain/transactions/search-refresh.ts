/**
 * Whether a write changed what the search index (issue 37) read from a transaction that had already finished: its
 * channel (which users may find it), its request time (where it sits newest first), or its request or response body
 * (the keys and words). The finished-transaction feed names a transaction once, at its first final status; a later
 * write of these parts (a mediator's `PUT /transactions/:id` with the response it got afterwards) names it again, so
 * the indexer reads it again. Routes and orchestrations are not indexed, and the status is read from the log.
 */
import type { RequestPart, ResponsePart } from './transaction-parts.js';

/** The parts of a stored transaction the index is made from, as this rule reads them. */
export interface IndexedParts<B> {
  status: string;
  channelID: string;
  request: Pick<RequestPart<B>, 'timestamp' | 'headers' | 'body'>;
  response?: Pick<ResponsePart<B>, 'headers' | 'body'>;
}

/** What of one part the index depends on: the body's reference (compared by value) and the content type it is decoded by. */
function partKey<B>(part: { headers: Record<string, string>; body?: B } | undefined): unknown {
  return part === undefined ? null : [part.body ?? null, part.headers['content-type'] ?? null];
}

/** A transaction's indexed parts as one value, taken before a write that changes the record in place. */
export interface IndexedSnapshot {
  status: string;
  key: string;
}

export function indexedSnapshot<B>(parts: IndexedParts<B>): IndexedSnapshot {
  const at = parts.request.timestamp;
  return { status: parts.status, key: JSON.stringify([parts.channelID, at instanceof Date ? at.getTime() : at, partKey(parts.request), partKey(parts.response)]) };
}

/** True when the transaction must be indexed again: final before and after the write, which changed a part the index was made from. */
export function needsReindexing<B>(before: IndexedSnapshot, after: IndexedParts<B>): boolean {
  if (before.status === 'Processing' || after.status === 'Processing') return false;
  return before.key !== indexedSnapshot(after).key;
}
