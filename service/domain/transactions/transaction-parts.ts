/**
 * A transaction's request, response and exchanges as the rules read and write them, with Dates for times and `B` for
 * whatever the body store gives as a body's reference. The rules declare these shapes themselves rather than import
 * the stored ones, so domain/ stays below storage/; storage/transactions.ts's records fit them, which the compiler
 * checks wherever a record is handed to a rule.
 */
import type { RequestLine } from '../../contracts/transactions.js';

export interface RequestPart<B> extends RequestLine {
  headers: Record<string, string>;
  timestamp: Date;
  body?: B;
}

export interface ResponsePart<B> {
  status: number;
  headers: Record<string, string>;
  timestamp: Date;
  body?: B;
}

export interface ExchangePart<B> {
  name: string;
  request: RequestPart<B>;
  response?: ResponsePart<B>;
  error?: { message: string; stack?: string };
}

/** What a rule may ask of a stored body's reference: how much was kept of how much was sent. */
export interface BodyFacts {
  size: number;
  receivedBytes: number;
  /** Only the first `size` bytes were kept. */
  truncated: boolean;
}
