/** Step 2: pick the channel. The body is read into memory only when a candidate channel matches on content. */
import { Readable } from 'node:stream';
import { AppError } from '../errors.js';
import { findChannel, matchesRequest, needsBody } from '../domain/channels/channel-match.js';
import type { ChannelRecord } from '../storage/records.js';
import { readUpTo, REQUEST_CUT_SHORT } from '../streams/relay.js';
import type { ChannelCache } from './channel-cache.js';
import type { TransactionContext } from './context.js';

/** The channel for this request, or undefined when none matches. Replaces `ctx.body` with a buffer when it had to read it. */
export async function matchChannel(ctx: TransactionContext, cache: ChannelCache, bodyLimit: number): Promise<ChannelRecord | undefined> {
  const request = { path: ctx.path, method: ctx.method, contentType: ctx.req.headers['content-type'] };
  const candidates = (await cache.enabled()).filter((c) => matchesRequest(c, request));
  if (!candidates.some(needsBody)) return candidates[0];
  const read = await readUpTo(ctx.body, bodyLimit, { closedEarly: REQUEST_CUT_SHORT });
  if (read.failure !== undefined) throw read.failure.error;
  // The rest stays unread; the refusal drains it (Pipeline.handle), so the client gets its 413 on a usable connection.
  if (!read.ended) throw new AppError('BODY_TOO_LARGE', `Content matching reads at most ${bodyLimit} bytes of a request body`);
  const body = Buffer.concat(read.chunks, read.size);
  ctx.body = Readable.from([body]);
  return findChannel(candidates, request, body.toString('utf8'));
}
