/**
 * The audit parser's worker thread (parsers.ts): parses batches of received messages off the main thread, encodes each
 * audit as the audit log stores it (its JSON document, indexed columns and terms), and answers each batch as the
 * documents beside one JSON string of everything else: the main thread reads that back far faster than the audits'
 * objects, and the documents (most of the bytes, full of quotes) are neither escaped into it nor unescaped out of it.
 */
import { parentPort } from 'node:worker_threads';
import { encodeAudit } from '../storage/audit-rows.js';
import { parseOne } from './parsers.js';
import { writeAnswer } from './parse-answer.js';

/** A batch to parse: the messages' texts and the times they were received (epoch ms), in the same order. */
export interface ParseRequest {
  id: number;
  texts: string[];
  receivedAt: number[];
}

parentPort?.on('message', (request: ParseRequest) => {
  const results = request.texts.map((text, i) => {
    const { audit, problem } = parseOne(text, new Date(request.receivedAt[i] ?? Date.now()));
    return { encoded: encodeAudit(audit), ...(problem === undefined ? {} : { problem }) };
  });
  parentPort?.postMessage(writeAnswer(request.id, results));
});
