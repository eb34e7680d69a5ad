/**
 * Messages Junction sends to people (issue 16): alerts, daily and weekly reports, test messages and set-password
 * links, by email or SMS. Every one is recorded before it is sent and kept with its outcome (`GET /notifications`),
 * so a failed send is retried and never lost silently, and alerts and reports are never sent twice. Import with
 * `import type`.
 */
import type { AlertCondition, AlertMethod } from './channels.js';

export type NotificationKind = 'alert' | 'report' | 'test' | 'password';
export const NOTIFICATION_KINDS: readonly NotificationKind[] = ['alert', 'report', 'test', 'password'];

/**
 * - `pending`: recorded and waiting for its first or next try (`nextAttemptAt`);
 * - `sent`: the SMTP server or SMS gateway accepted it;
 * - `failed`: every try failed (`lastError` says why), or it could not be sent at all (no address, no server set);
 * - `held`: an alert that the recipient's `maxAlerts` held back; its transactions go into their next alert.
 */
export type NotificationStatus = 'pending' | 'sent' | 'failed' | 'held';
export const NOTIFICATION_STATUSES: readonly NotificationStatus[] = ['pending', 'sent', 'failed', 'held'];

/** What an alert reported: which rule fired, over which window, on which transactions. */
export interface NotificationAlert {
  channelID: string;
  channelName: string;
  /** Identifies the rule on its channel (domain/alerts/alert-rules.ts `ruleKey`). */
  ruleKey: string;
  condition: AlertCondition;
  /** The rule's status pattern (`500`, `4xx`); unset for auto-retry rules. */
  status?: string;
  /** The rule's failure rate threshold in percent, when it has one. */
  failureRate?: number;
  /** The span the message reports, `[from, to)`, ISO 8601. */
  window: { from: string; to: string };
  /** How many transactions matched in the window. */
  count: number;
  /** The matching transactions the message reported (the de-duplication reads these). */
  transactionIds: string[];
}

/** What a report covered. */
export interface NotificationReport {
  period: 'daily' | 'weekly';
  /** `[from, to)`, ISO 8601. */
  from: string;
  to: string;
}

/** One message as `GET /notifications` lists it. Bodies are not shown: the subject says what it was. */
export interface Notification {
  _id: string;
  kind: NotificationKind;
  method: AlertMethod;
  /** The recipient user's email, when the message is for a user. */
  user?: string;
  /** The address it goes to: an email address, or a phone number (MSISDN) for SMS. */
  to: string;
  subject: string;
  status: NotificationStatus;
  /** Tries made so far. */
  attempts: number;
  /** When the next try is due, while `pending`. */
  nextAttemptAt?: string;
  /** Why the last try failed, or why it could not be sent. */
  lastError?: string;
  created: string;
  sentAt?: string;
  alert?: NotificationAlert;
  report?: NotificationReport;
}

/** `POST /notifications/test` (admins): sends a test message now and answers with its record once it is sent or failed. */
export interface NotificationTestInput {
  method: AlertMethod;
  /** An email address for `email`, a phone number (digits, optional leading +) for `sms`. */
  to: string;
}
