/** How the notifications page words a message's state, a test send's outcome, and a test address that cannot work. */
import type { AlertMethod } from '../../../../service/contracts/channels';
import type { Notification, NotificationKind, NotificationStatus } from '../../../../service/contracts/notifications';

export const KIND_LABELS: Record<NotificationKind, string> = { alert: 'Alert', report: 'Report', test: 'Test', password: 'Password link' };

/** Each status's word (always shown: colour only repeats it) and colour. */
export const STATUS_VIEW: Record<NotificationStatus, { label: string; color: string }> = {
  sent: { label: 'Sent', color: 'teal' },
  pending: { label: 'Pending', color: 'blue' },
  held: { label: 'Held back', color: 'gray' },
  failed: { label: 'Failed', color: 'red' },
};

/** What a test send's record says: whether it went, and if not, why and what happens next. */
export interface TestOutcome {
  sent: boolean;
  title: string;
  text: string;
}

/** The outcome of `POST /notifications/test`, from the record it answers with. */
export function testOutcome(record: Notification, formatTime: (iso: string) => string): TestOutcome {
  const how = record.method === 'sms' ? 'SMS' : 'email';
  if (record.status === 'sent') {
    return { sent: true, title: 'Test message sent', text: `The ${how} to ${record.to} was accepted by the ${record.method === 'sms' ? 'SMS gateway' : 'mail server'}. Check that it arrived.` };
  }
  const why = record.lastError === undefined || record.lastError === '' ? 'No reason was recorded.' : `Reason: ${record.lastError}`;
  if (record.status === 'pending') {
    const next = record.nextAttemptAt === undefined ? '' : ` Junction tries again at ${formatTime(record.nextAttemptAt)}.`;
    return { sent: false, title: 'Test message not sent yet', text: `The ${how} to ${record.to} could not be sent on the first try. ${why}${next}` };
  }
  return { sent: false, title: 'Test message not sent', text: `The ${how} to ${record.to} could not be sent. ${why}` };
}

const PHONE = /^\+?[0-9]{6,15}$/;
// Loose on purpose: the server checks the address; this catches a missing @ before a round trip.
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Why a test address cannot be used with this method, or null. */
export function testAddressProblem(method: AlertMethod, to: string): string | null {
  const address = to.trim();
  if (method === 'email') {
    if (address === '') return 'Enter the email address to send to';
    return EMAIL.test(address) ? null : 'Enter a whole email address, such as name@clinic.example';
  }
  if (address === '') return 'Enter the mobile number to send to';
  return PHONE.test(address) ? null : 'Use the international number in digits, such as +27821234567';
}
