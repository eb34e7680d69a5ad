/** How a list row found by a key says which key matched (issue 37), and the link that highlights it in the message. */
import type { TransactionKeyMatch, TransactionView } from '../../../../service/contracts/transactions';

const KEY_NAMES: Record<string, string> = { patientId: 'Patient ID', orderNumber: 'Order number', controlId: 'Control ID', messageType: 'Message type' };

/** `Patient ID 1004 (MRN) · PID-3`. */
export function matchWords(match: TransactionKeyMatch): string {
  const name = KEY_NAMES[match.name] ?? match.name;
  return `${name} ${match.value}${match.authority === undefined ? '' : ` (${match.authority})`} · ${match.field}`;
}

/** The row's detail page; found by a key, with that key to highlight (`?field=PID-3&value=1004`). */
export function detailPath(tx: Pick<TransactionView, '_id' | 'match'>): string {
  const path = `/transactions/${encodeURIComponent(tx._id)}`;
  const first = tx.match?.[0];
  if (first === undefined) return path;
  return `${path}?${new URLSearchParams({ field: first.field, value: first.value }).toString()}`;
}
