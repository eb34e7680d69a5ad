/**
 * `GET /attention`: what an administrator must act on (issue 35), worst first. Admins see every item; other users
 * see only the items about channels they may view (refusals, a listener that cannot bind, access rules that admit
 * nobody), since everything else is fixed in settings only admins can change.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Attention } from '../../attention/attention.js';
import type { ChannelCatalogue } from '../../channels/catalogue.js';
import { canViewChannel, isAdmin } from '../../domain/access/permissions.js';
import { currentUser } from '../auth/hook.js';
import { NoQuery } from '../schemas/common.js';
import { AttentionListSchema } from '../schemas/attention.js';

export interface AttentionRoutesDeps {
  attention: Attention;
  channels: ChannelCatalogue;
}

export function attentionRoutes(deps: AttentionRoutesDeps): FastifyPluginAsyncTypebox {
  const { attention, channels } = deps;
  return async (app) => {
    // Open during a database outage to a session checked lately: the list is where the console says what is wrong.
    app.get('/attention', { config: { duringStoreOutage: true }, schema: { querystring: NoQuery, response: { 200: AttentionListSchema } } }, async (request) => {
      const user = currentUser(request);
      if (isAdmin(user)) return attention.list({ admin: true, mayViewChannel: () => true });
      const visible = new Set((await channels.list(false)).filter((c) => canViewChannel(user, c)).map((c) => c._id));
      return attention.list({ admin: false, mayViewChannel: (id) => visible.has(id) });
    });
  };
}
