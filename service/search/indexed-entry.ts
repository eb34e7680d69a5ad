/**
 * One transaction as the search index holds it (issue 37): its stored request and response bodies read once each,
 * their clinical keys, and the first `maxTextBytes` of their text for the full-text index. A body that is gone
 * (retention's maxBodyAgeDays) is skipped; a part the channel does not store has no body to read, so a channel that
 * stores no bodies gives nothing to index.
 */
import { textEncodingOfContentType } from '../domain/codecs/hl7.js';
import type { ClinicalKey } from '../domain/clinical/clinical-key.js';
import { transactionKeys } from '../domain/clinical/extract.js';
import type { Bodies, BodyRef } from '../storage/bodies/bodies.js';
import type { IndexedTransaction } from '../storage/search-index.js';
import type { IndexableRecord } from '../storage/recent-finished.js';

/** Bytes of a body read for its keys whatever `search.maxTextBytes` says: a large ORU or batch keeps its PID and OBRs past 64 KB. */
export const KEY_READ_BYTES = 1024 * 1024;

export interface EntryReading {
  bodies: Pick<Bodies, 'readText'>;
  /** `search.maxTextBytes`. */
  maxTextBytes: number;
}

/** The leading `max` bytes of `text` in UTF-8 (a character cut in two reads as U+FFFD, which no word contains). */
export function leadingBytes(text: string, max: number): string {
  if (max <= 0) return '';
  // A string of n UTF-16 units is at most 3n UTF-8 bytes: most bodies are short enough to skip the encoding.
  if (text.length * 3 <= max) return text;
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= max ? text : bytes.subarray(0, max).toString('utf8');
}

/** A body's text, or null when it is gone; any other failure of the store rejects (the batch is tried again later). */
async function readBody(reading: EntryReading, ref: BodyRef, contentType: string | undefined): Promise<string | null> {
  try {
    return await reading.bodies.readText(ref, Math.max(KEY_READ_BYTES, reading.maxTextBytes), textEncodingOfContentType(contentType));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The transaction's entry, or null when it has nothing to index (no stored body, or bodies with no keys and no text). */
export async function indexedEntry(reading: EntryReading, record: IndexableRecord): Promise<IndexedTransaction | null> {
  const texts: { text: string; part: ClinicalKey['part'] }[] = [];
  const parts: [ClinicalKey['part'], { body?: BodyRef; headers: Record<string, string> } | undefined][] = [
    ['request', record.request],
    ['response', record.response],
  ];
  for (const [part, exchange] of parts) {
    if (exchange?.body === undefined) continue;
    const text = await readBody(reading, exchange.body, exchange.headers['content-type']);
    if (text !== null && text !== '') texts.push({ text, part });
  }
  if (texts.length === 0) return null;
  const keys = transactionKeys(texts);
  const text = texts.map((t) => leadingBytes(t.text, reading.maxTextBytes)).join('\n').trim();
  if (keys.length === 0 && text === '') return null;
  return { id: record._id, requestTimestamp: record.request.timestamp, channelID: record.channelID, keys, text };
}
