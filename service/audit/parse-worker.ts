/**
 * The audit parser's worker thread (parsers.ts): parses batches of received messages off the main thread and answers
 * each batch as one JSON string, which the main thread reads back faster than a structured clone of the objects.
 */
import { parentPort } from 'node:worker_threads';
import { parseOne } from './parsers.js';

/** A batch to parse: the messages' texts and the times they were received (epoch ms), in the same order. */
export interface ParseRequest {
  id: number;
  texts: string[];
  receivedAt: number[];
}

/** The batch's results, `ParsedAuditMessage[]` as JSON (dates as ISO strings). */
export interface ParseAnswer {
  id: number;
  json: string;
}

parentPort?.on('message', (request: ParseRequest) => {
  const results = request.texts.map((text, i) => parseOne(text, new Date(request.receivedAt[i] ?? Date.now())));
  const answer: ParseAnswer = { id: request.id, json: JSON.stringify(results) };
  parentPort?.postMessage(answer);
});
