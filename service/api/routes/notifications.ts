/**
 * Messages to people: `GET /notifications` lists their records (alerts, reports, test messages, set-password links)
 * newest first, and `POST /notifications/test` sends a test message to check the email or SMS settings. Admins only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Notifications } from '../../notify/notifications.js';
import { requireAdmin } from '../guards.js';
import { notificationView } from '../views/notifications.js';
import { DEFAULT_NOTIFICATIONS_LIMIT, NotificationListQuery, NotificationSchema, NotificationTestBody } from '../schemas/notifications.js';
import { NoQuery } from '../schemas/common.js';

export interface NotificationRoutesDeps {
  notifications: Notifications;
}

export function notificationRoutes(deps: NotificationRoutesDeps): FastifyPluginAsyncTypebox {
  const { notifications } = deps;

  return async (app) => {
    app.get('/notifications', { schema: { querystring: NotificationListQuery, response: { 200: Type.Array(NotificationSchema) } } }, async (request) => {
      requireAdmin(request, 'view sent messages');
      const { kind, status, user, limit, skip } = request.query;
      const records = await notifications.list({
        ...(kind === undefined ? {} : { kind }),
        ...(status === undefined ? {} : { status }),
        ...(user === undefined ? {} : { user }),
        limit: limit ?? DEFAULT_NOTIFICATIONS_LIMIT,
        skip: skip ?? 0,
      });
      return records.map(notificationView);
    });

    app.post('/notifications/test', { schema: { querystring: NoQuery, body: NotificationTestBody, response: { 201: NotificationSchema } } }, async (request, reply) => {
      const admin = requireAdmin(request, 'send test messages');
      const record = await notifications.sendTest(request.body, admin.email);
      request.log.info({ notification: record._id, method: record.method, to: record.to, status: record.status, by: admin.email }, 'test message sent');
      return reply.code(201).send(notificationView(record));
    });
  };
}
