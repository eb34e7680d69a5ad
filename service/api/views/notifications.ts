/** The public view of a message record, as `GET /notifications` and the test message answer with it. */
import type { Notification } from '../../contracts/notifications.js';
import type { NotificationRecord } from '../../storage/records.js';

/** A record without its bodies or de-duplication key, dates as ISO 8601 text. */
export function notificationView(record: NotificationRecord): Notification {
  const { _id, kind, method, user, to, subject, status, attempts, nextAttemptAt, lastError, created, sentAt, alert, report } = record;
  return {
    _id,
    kind,
    method,
    ...(user === undefined ? {} : { user }),
    to,
    subject,
    status,
    attempts,
    ...(nextAttemptAt === undefined || status !== 'pending' ? {} : { nextAttemptAt: nextAttemptAt.toISOString() }),
    ...(lastError === undefined ? {} : { lastError }),
    created: created.toISOString(),
    ...(sentAt === undefined ? {} : { sentAt: sentAt.toISOString() }),
    ...(alert === undefined ? {} : { alert: { ...alert, window: { from: alert.window.from.toISOString(), to: alert.window.to.toISOString() } } }),
    ...(report === undefined ? {} : { report: { period: report.period, from: report.from.toISOString(), to: report.to.toISOString() } }),
  };
}
