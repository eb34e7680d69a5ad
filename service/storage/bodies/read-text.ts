/** A stored body as text, shared by every body engine. */
import type { Readable } from 'node:stream';
import { readUpTo } from '../../streams/relay.js';

/** Reads `source` as text, at most `limit` bytes, decoded from `encoding` (a TextDecoder label); rejects on its error. */
export async function readBodyText(source: Readable, limit: number, encoding: string): Promise<string> {
  const read = await readUpTo(source, limit);
  if (read.failure !== undefined) throw read.failure.error;
  if (!read.ended) source.destroy();
  const bytes = Buffer.concat(read.chunks, read.size).subarray(0, Math.min(read.size, limit));
  return encoding === 'utf-8' ? bytes.toString('utf8') : new TextDecoder(encoding).decode(bytes);
}
