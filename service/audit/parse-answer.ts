/**
 * How the parse worker (parse-worker.ts) answers a batch: the audits' documents as an array of strings, which cross
 * threads as plain copies, beside one JSON string of everything else. One JSON string of the whole batch escaped every
 * quote of every document on the way out and unescaped it on the way in, on both threads.
 */
import type { EncodedAudit } from '../storage/audit-rows.js';
import type { ParsedMessage } from './parsers.js';

/**
 * The batch's results: `ParsedMessage[]` in their encoded form as JSON, each `encoded.columns.doc` left empty there
 * and carried in `docs` at the same index instead (`readAnswer` puts them back).
 */
export interface ParseAnswer {
  id: number;
  json: string;
  docs: string[];
}

/** Encodes a parsed batch as the worker answers it. */
export function writeAnswer(id: number, results: readonly (ParsedMessage & { encoded: EncodedAudit })[]): ParseAnswer {
  const docs: string[] = [];
  for (const result of results) {
    docs.push(result.encoded.columns.doc);
    result.encoded.columns.doc = '';
  }
  return { id, json: JSON.stringify(results), docs };
}

/** The results of a batch the worker answered; undefined when the answer is not whole (a document missing). */
export function readAnswer(answer: ParseAnswer): ParsedMessage[] | undefined {
  const results = JSON.parse(answer.json) as (ParsedMessage & { encoded: EncodedAudit })[];
  if (!Array.isArray(results) || !Array.isArray(answer.docs) || answer.docs.length !== results.length) return undefined;
  results.forEach((result, i) => {
    result.encoded.columns.doc = answer.docs[i] as string;
  });
  return results;
}
