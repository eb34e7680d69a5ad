/**
 * Request and response schemas of the message records (`GET /notifications`) and the test message
 * (`POST /notifications/test`). The answer is the contract's `Notification` (test/types/ keeps them equal).
 */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { NOTIFICATION_KINDS, NOTIFICATION_STATUSES } from '../../contracts/notifications.js';

/** Most records one list answer holds. */
export const MAX_NOTIFICATIONS_LIMIT = 1000;
export const DEFAULT_NOTIFICATIONS_LIMIT = 100;

const Kind = Type.Enum([...NOTIFICATION_KINDS]);
const Status = Type.Enum([...NOTIFICATION_STATUSES]);
const Method = Type.Enum(['email', 'sms']);

export const NotificationListQuery = Type.Object(
  {
    kind: Type.Optional(Kind),
    status: Type.Optional(Status),
    user: Type.Optional(Type.String({ format: 'email', minLength: 3, maxLength: 254, description: "the recipient user's email" })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_NOTIFICATIONS_LIMIT, description: `records per answer (default ${DEFAULT_NOTIFICATIONS_LIMIT})` })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'records to skip, newest first' })),
  },
  { additionalProperties: false },
);
export type NotificationListQuery = Static<typeof NotificationListQuery>;

export const NotificationTestBody = Type.Object(
  {
    method: Method,
    to: Type.String({ minLength: 1, maxLength: 254, description: 'an email address for email, a phone number (digits, optional leading +) for sms' }),
  },
  { additionalProperties: false },
);
export type NotificationTestBody = Static<typeof NotificationTestBody>;

const Iso = Type.String();

export const NotificationSchema = Type.Object({
  _id: Type.String(),
  kind: Kind,
  method: Method,
  user: Type.Optional(Type.String()),
  to: Type.String(),
  subject: Type.String(),
  status: Status,
  attempts: Type.Integer(),
  nextAttemptAt: Type.Optional(Iso),
  lastError: Type.Optional(Type.String()),
  created: Iso,
  sentAt: Type.Optional(Iso),
  alert: Type.Optional(
    Type.Object({
      channelID: Type.String(),
      channelName: Type.String(),
      ruleKey: Type.String(),
      condition: Type.Enum(['status', 'auto-retry-max-attempted', 'refusals']),
      status: Type.Optional(Type.String()),
      failureRate: Type.Optional(Type.Number()),
      window: Type.Object({ from: Iso, to: Iso }),
      count: Type.Integer(),
      transactionIds: Type.Array(Type.String()),
    }),
  ),
  report: Type.Optional(Type.Object({ period: Type.Enum(['daily', 'weekly']), from: Iso, to: Iso })),
});
