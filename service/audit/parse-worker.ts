/**
 * The audit parser's worker thread (parsers.ts): parses batches of received messages off the main thread, encodes each
 * audit as the audit log stores it (its JSON document, indexed columns and terms), and answers each batch as one JSON
 * string of those strings and numbers, which the main thread reads back far faster than the audits' objects.
 */
import { parentPort } from 'node:worker_threads';
import { encodeAudit } from '../storage/audit-rows.js';
import { parseOne } from './parsers.js';
import type { ParsedMessage } from './parsers.js';

/** A batch to parse: the messages' texts and the times they were received (epoch ms), in the same order. */
export interface ParseRequest {
  id: number;
  texts: string[];
  receivedAt: number[];
}

/** The batch's results, `ParsedMessage[]` in their encoded form, as JSON. */
export interface ParseAnswer {
  id: number;
  json: string;
}

parentPort?.on('message', (request: ParseRequest) => {
  const results = request.texts.map((text, i): ParsedMessage => {
    const { audit, problem } = parseOne(text, new Date(request.receivedAt[i] ?? Date.now()));
    return { encoded: encodeAudit(audit), ...(problem === undefined ? {} : { problem }) };
  });
  const answer: ParseAnswer = { id: request.id, json: JSON.stringify(results) };
  parentPort?.postMessage(answer);
});
