/** How a list row found by a key says which key matched (issue 37), and the link that highlights it in the message. */
import type { TransactionKeyMatch, TransactionView } from '../../../../service/contracts/transactions';

const KEY_NAMES: Record<string, string> = { patientId: 'Patient ID', orderNumber: 'Order number', controlId: 'Control ID', messageType: 'Message type' };

/** `Patient ID 1004 (MRN) · PID-3`. */
export function matchWords(match: TransactionKeyMatch): string {
  const name = KEY_NAMES[match.name] ?? match.name;
  return `${name} ${match.value}${match.authority === undefined ? '' : ` (${match.authority})`} · ${match.field}`;
}

/**
 * The row's detail page; found by a key, with that key to highlight (`?field=PID-3&value=1004`); found by a text
 * search, with its words to mark (`?words=hemoglobin low`).
 */
export function detailPath(tx: Pick<TransactionView, '_id' | 'match'>, text = ''): string {
  const path = `/transactions/${encodeURIComponent(tx._id)}`;
  const params = new URLSearchParams();
  const first = tx.match?.[0];
  if (first !== undefined) {
    params.set('field', first.field);
    params.set('value', first.value);
  }
  if (text.trim() !== '') params.set('words', text.trim());
  const query = params.toString();
  return query === '' ? path : `${path}?${query}`;
}
