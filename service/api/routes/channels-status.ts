/**
 * "Is it working?" (issue 36): `GET /channels/status` answers for every channel the caller may view, in one call,
 * today's received, failed and refused counts, the newest transaction's time, the listener's state and the address
 * to send to. Admins only: `POST /channels/:channelId/check-routes` connects (and shakes hands over TLS) to each
 * route without sending anything, and `POST /channels/:channelId/test-message` sends what the administrator wrote
 * through the channel as a real transaction marked `test: "true"`; both are logged with who asked.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ChannelRoute, RouteCheckResult } from '../../contracts/channels.js';
import { canViewChannel } from '../../domain/access/permissions.js';
import type { ChannelCatalogue } from '../../channels/catalogue.js';
import type { ChannelStatuses } from '../../channels/channel-status.js';
import type { TestMessages } from '../../channels/test-messages.js';
import { currentUser } from '../auth/hook.js';
import { requireAdmin } from '../guards.js';
import { NoQuery } from '../schemas/common.js';
import { ChannelListQuery, ChannelParams, ChannelStatusAnswerSchema, RouteCheckAnswerSchema, TestMessageAnswerSchema, TestMessageBodySchema } from '../schemas/channels.js';

export interface ChannelStatusRoutesDeps {
  channels: ChannelCatalogue;
  channelStatuses: ChannelStatuses;
  testMessages: TestMessages;
  /** Connects to each route with the keystore's trusted CAs and `router.routeCheckTimeoutMs` (routing/route-check.ts). */
  checkRoutes: (routes: readonly ChannelRoute[]) => Promise<RouteCheckResult[]>;
}

export function channelStatusRoutes(deps: ChannelStatusRoutesDeps): FastifyPluginAsyncTypebox {
  const { channels, channelStatuses, testMessages, checkRoutes } = deps;
  return async (app) => {
    app.get('/channels/status', { schema: { querystring: ChannelListQuery, response: { 200: ChannelStatusAnswerSchema } } }, async (request) => {
      const user = currentUser(request);
      const all = await channels.list(request.query.includeDeleted === true);
      return channelStatuses.of(all.filter((c) => canViewChannel(user, c)));
    });

    app.post('/channels/:channelId/check-routes', { schema: { params: ChannelParams, querystring: NoQuery, response: { 200: RouteCheckAnswerSchema } } }, async (request) => {
      const user = requireAdmin(request, 'check the routes of channels');
      const channel = await channels.get(request.params.channelId);
      const routes = await checkRoutes(channel.routes);
      const failed = routes.filter((r) => r.outcome !== 'ok').map((r) => ({ route: r.name, outcome: r.outcome }));
      request.log.info({ channel: channel.name, by: user.email, failed }, 'channel routes checked');
      // Routes switched off are shown, but do not make a channel whose routes in use all answer look broken.
      return { channel: { _id: channel._id, name: channel.name }, ok: routes.every((r) => r.outcome === 'ok' || !r.enabled), routes };
    });

    app.post(
      '/channels/:channelId/test-message',
      { schema: { params: ChannelParams, querystring: NoQuery, body: TestMessageBodySchema, response: { 200: TestMessageAnswerSchema } } },
      async (request) => {
        const user = requireAdmin(request, 'send test messages');
        const channel = await channels.get(request.params.channelId);
        const answer = await testMessages.send(channel, request.body, request.ip);
        request.log.info({ channel: channel.name, by: user.email, transactionId: answer.transactionId, status: answer.status, bytes: Buffer.byteLength(request.body.body) }, 'test message sent through a channel');
        return answer;
      },
    );
  };
}
