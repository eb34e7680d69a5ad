/**
 * Why a transaction did not succeed, in one short line for the transaction list and the CSV export (issue 36): the
 * error that stopped it (a route that could not be reached, Junction's own failure, a mediator's reported error), an
 * HL7 ACK's code and text (`AE: Unknown patient`), or the upstream's status and the start of its error body (`500:
 * database is locked`), or which other route failed. Decided once, when the transaction completes, and stored with it
 * (`reason`), so a list never reads a body; a transaction stored before that gets what its record says
 * (`recordedReason`). Bounded, on one line, and with credentials masked: it is shown to everyone who may see the
 * transaction, whether or not they may see its bodies.
 */
import { ackStatementOf } from '../codecs/hl7.js';
import type { TransactionStatus } from './transaction-status.js';

/** The longest reason stored, in characters (the list shows its start, the CSV and the detail page all of it). */
export const REASON_MAX_CHARS = 200;
/**
 * Bytes of an error answer's body the pipeline keeps for its reason: more than REASON_MAX_CHARS, as markup and
 * whitespace are dropped, and enough for an HL7 ACK's MSH, MSA and ERR segments.
 */
export const REASON_BODY_BYTES = 2048;

/** The answer the client was given from the primary route: its status, and the start of its body when it was an error. */
export interface AnswerFacts {
  status: number;
  /** The first bytes of the body (at most REASON_BODY_BYTES are read); only error answers need one. */
  head?: Buffer;
  contentType?: string;
}

/** Another route's outcome, as the transaction records it. */
export interface RouteFacts {
  name: string;
  status?: number;
  error?: string;
}

export interface ReasonFacts {
  status: TransactionStatus;
  /** The transaction's error message, when it has one. */
  error?: string;
  /** What the primary route answered (for a message channel: the route's own reply, before any ACK Junction built). */
  answer?: AnswerFacts;
  /** The other routes that were sent. */
  routes?: readonly RouteFacts[];
}

/** Credentials a body or an error message might echo: replaced by `****` (e.g. `password=****`, `Bearer ****`). */
const SECRETS: readonly [RegExp, string][] = [
  [/\b(basic|bearer|digest|negotiate)\s+[A-Za-z0-9+/=._~-]{4,}/gi, '$1 ****'],
  [/("?\b(?:password|passwd|pwd|secret|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|api[_-]?key|apikey|authorization|cookie)\b"?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"'}]+)/gi, '$1****'],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^/:@\s]+:)[^@\s/]+@/gi, '$1****@'],
];

/** Types whose bodies are not text a person reads. */
const BINARY_TYPE = /^(image|audio|video|font)\/|^application\/(octet-stream|pdf|zip|gzip|x-[\w-]*compressed|vnd\.[\w.-]*(zip|sheet|document))/i;

/** Text for one line: credentials masked, whitespace collapsed, cut to REASON_MAX_CHARS with an ellipsis. */
export function reasonText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRETS) out = out.replace(pattern, replacement);
  // Control characters (an HL7 segment break, a stray NUL) and runs of whitespace become one space.
  out = out.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  return out.length <= REASON_MAX_CHARS ? out : `${out.slice(0, REASON_MAX_CHARS - 1).trimEnd()}…`;
}

/** The start of an error body as text a person can read, or undefined when it is empty or not text. */
function bodyText(answer: AnswerFacts): string | undefined {
  const { head, contentType } = answer;
  if (head === undefined || head.length === 0) return undefined;
  if (contentType !== undefined && BINARY_TYPE.test(contentType.trim())) return undefined;
  const decoded = new TextDecoder('utf-8').decode(head);
  // Bytes that are not UTF-8 text (a binary body sent without a type) say nothing to a person.
  let unreadable = 0;
  for (const ch of decoded) if (ch === '\uFFFD' || ch === '\u0000') unreadable++;
  if (unreadable > decoded.length / 10) return undefined;
  // An HTML error page (a proxy's 502) reads best as its words: tags, scripts and styles dropped.
  const html = /html/i.test(contentType ?? '') || /^\s*<(!doctype|html)/i.test(decoded);
  const text = html ? decoded.replace(/<(script|style)\b[\s\S]*?(<\/\1>|$)/gi, ' ').replace(/<[^>]*>?/g, ' ').replace(/&nbsp;/g, ' ') : decoded;
  const line = reasonText(text);
  return line === '' ? undefined : line;
}

/** The answer's own words: a negative ACK's code and text, or its status and the start of its body; undefined for a good answer. */
function answerReason(answer: AnswerFacts): string | undefined {
  if (answer.head !== undefined) {
    const ack = ackStatementOf(answer.head);
    if (ack !== null) {
      if (ack.code === 'AA' || ack.code === 'CA') return undefined;
      return reasonText(ack.text === undefined ? ack.code : `${ack.code}: ${ack.text}`);
    }
  }
  if (answer.status < 400) return undefined;
  const body = bodyText(answer);
  return reasonText(body === undefined ? String(answer.status) : `${answer.status}: ${body}`);
}

/** The first other route that failed (an error, no answer or a 5xx before any other non-2xx), in words. */
function routeReason(routes: readonly RouteFacts[]): string | undefined {
  const failed = (r: RouteFacts) => r.error !== undefined || r.status === undefined || r.status >= 500;
  const route = routes.find(failed) ?? routes.find((r) => r.status !== undefined && (r.status < 200 || r.status >= 300));
  if (route === undefined) return undefined;
  const what = route.error ?? (route.status === undefined ? 'no answer' : String(route.status));
  return reasonText(`route ${route.name}: ${what}`);
}

/**
 * Why the transaction did not succeed, or undefined when it did (or is still running, or nothing says why): its
 * error, then the primary's answer (a negative ACK, or an error status with the start of its body), then the other
 * routes.
 */
export function transactionReason(facts: ReasonFacts): string | undefined {
  if (facts.status === 'Successful' || facts.status === 'Processing') return undefined;
  if (facts.error !== undefined && facts.error.trim() !== '') return reasonText(facts.error);
  const fromAnswer = facts.answer === undefined ? undefined : answerReason(facts.answer);
  if (fromAnswer !== undefined) return fromAnswer;
  return routeReason(facts.routes ?? []);
}

/** What a stored transaction holds that a reason can be read from, without its bodies. */
export interface RecordedOutcome {
  status: TransactionStatus;
  reason?: string;
  error?: { message: string };
  response?: { status: number; headers?: Record<string, string> };
  routes?: readonly { name: string; response?: { status: number }; error?: { message: string } }[];
}

/**
 * The reason a record says, decided afresh (a transaction written through the API): its error, its response's status
 * with `head` (the start of the response body, when the caller has it as text) and its routes.
 */
export function reasonOfRecord(tx: RecordedOutcome, head?: Buffer): string | undefined {
  const contentType = tx.response?.headers?.['content-type'];
  return transactionReason({
    status: tx.status,
    ...(tx.error === undefined ? {} : { error: tx.error.message }),
    ...(tx.response === undefined
      ? {}
      : { answer: { status: tx.response.status, ...(head === undefined ? {} : { head }), ...(contentType === undefined ? {} : { contentType }) } }),
    routes: (tx.routes ?? []).map((r) => ({ name: r.name, ...(r.response === undefined ? {} : { status: r.response.status }), ...(r.error === undefined ? {} : { error: r.error.message }) })),
  });
}

/**
 * A stored transaction's reason: the one decided when it completed, or, for a transaction stored before reasons
 * were (or finished by start-up recovery), what its error, response status and routes say. Never reads a body.
 */
export function recordedReason(tx: RecordedOutcome): string | undefined {
  return tx.reason ?? reasonOfRecord(tx);
}
