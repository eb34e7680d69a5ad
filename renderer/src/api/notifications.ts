/** Typed calls of the notifications routes (admins): the record of every alert, report, test and password message. */
import type { Notification, NotificationKind, NotificationStatus, NotificationTestInput } from '../../../service/contracts/notifications';
import { api } from './client';

/** Which messages to list: newest first, `limit` from `skip`. */
export interface NotificationQuery {
  kind?: NotificationKind;
  status?: NotificationStatus;
  limit: number;
  skip: number;
}

/** One page of messages (`GET /notifications`), newest first. */
export function listNotifications(query: NotificationQuery, signal?: AbortSignal): Promise<Notification[]> {
  return api.get<Notification[]>('/notifications', { kind: query.kind, status: query.status, limit: query.limit, skip: query.skip }, signal);
}

/** Sends a test message now (`POST /notifications/test`) and answers with its record, sent or failed. */
export function sendTestNotification(input: NotificationTestInput): Promise<Notification> {
  return api.post<Notification>('/notifications/test', input);
}
