/**
 * An HL7 receiver's refusal, named as such on a transaction's summary (issue 36): an `AE`, `AR`, `CE` or `CR` ACK
 * from the primary route counts as a 4xx or 5xx answer (docs/integrator/transaction-ports.md, "ACK rules"), so the transaction reads "Completed" or
 * "Failed" with a 400 or 500 that the receiver never sent. The service stores the ACK's code and text as the
 * transaction's reason (`AE: Unknown patient`); a reason of Junction's own (the route could not be reached, so the
 * transaction has an error) is not the receiver's refusal. Pure.
 */
import type { TransactionView } from '../../../../service/contracts/transactions';

/** What each refusing acknowledgement code means, in words. */
export const REFUSAL_MEANING = {
  AE: 'application error',
  AR: 'rejected',
  CE: 'commit error',
  CR: 'commit rejected',
} as const;

export type RefusalCode = keyof typeof REFUSAL_MEANING;

export interface Refusal {
  code: RefusalCode;
  meaning: string;
  /** The receiver's words (MSA-3 or ERR), when it gave any. */
  text?: string;
}

/** The receiver's refusal the transaction records, or null when it was not refused by an ACK. */
export function receiverRefusal(tx: Pick<TransactionView, 'reason' | 'error'>): Refusal | null {
  if (tx.error !== undefined || tx.reason === undefined) return null;
  const match = /^(AE|AR|CE|CR)(?::\s*([\s\S]*))?$/.exec(tx.reason);
  if (match === null) return null;
  const code = match[1] as RefusalCode;
  const text = match[2]?.trim();
  return { code, meaning: REFUSAL_MEANING[code], ...(text === undefined || text === '' ? {} : { text }) };
}

/** The summary's sentence: `The receiving system (route Lab) refused it: AE — Unknown patient`. */
export function refusalSentence(refusal: Refusal, routeName: string | undefined): string {
  const who = routeName === undefined ? 'The receiving system' : `The receiving system (route ${routeName})`;
  return `${who} refused it: ${refusal.code} (${refusal.meaning})${refusal.text === undefined ? '' : ` — ${refusal.text}`}`;
}
