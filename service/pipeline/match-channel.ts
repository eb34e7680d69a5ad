/** Step 2: pick the channel. The body is read into memory only when a candidate channel matches on content. */
import { Readable } from 'node:stream';
import { AppError } from '../errors.js';
import { findChannel, matchesRequest, needsBody } from '../domain/channel-match.js';
import type { ChannelRecord } from '../storage/records.js';
import type { ChannelCache } from './channel-cache.js';
import type { TransactionContext } from './context.js';

async function readLimited(source: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new AppError('BODY_TOO_LARGE', `Content matching reads at most ${limit} bytes of a request body`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** The channel for this request, or undefined when none matches. Replaces `ctx.body` with a buffer when it had to read it. */
export async function matchChannel(ctx: TransactionContext, cache: ChannelCache, bodyLimit: number): Promise<ChannelRecord | undefined> {
  const request = { path: ctx.path, method: ctx.method, contentType: ctx.req.headers['content-type'] };
  const candidates = (await cache.enabled()).filter((c) => matchesRequest(c, request));
  if (!candidates.some(needsBody)) return candidates[0];
  const body = await readLimited(ctx.body, bodyLimit);
  ctx.body = Readable.from([body]);
  return findChannel(candidates, request, body.toString('utf8'));
}
