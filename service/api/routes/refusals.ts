/**
 * `GET /refusals` (issue 35): requests and messages refused before they became transactions, one row per minute,
 * address, listener, channel and reason, newest first. Admins see every row; other users only the rows of channels
 * whose transactions they may view (a refusal with no channel, such as no channel matching, is for admins only), and a
 * filter naming a channel they may not view is 403, as for metrics.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ChannelCatalogue } from '../../channels/catalogue.js';
import { AppError } from '../../errors.js';
import { invalidInput } from '../../refusals.js';
import { isAdmin } from '../../domain/access/permissions.js';
import { parseRefusalQuery } from '../../domain/operations/refusals.js';
import { viewableChannels } from '../../domain/transactions/transaction-access.js';
import type { RefusalFilter, RefusalLogPage } from '../../storage/refusals.js';
import { currentUser } from '../auth/hook.js';
import { RefusalListQuery, RefusalPageAnswer } from '../schemas/refusals.js';
import { presentRefusal } from '../views/refusals.js';

export interface RefusalRoutesDeps {
  channels: ChannelCatalogue;
  /** The refusal recorder: writes what it holds, then reads the log. */
  refusals: { page(filter: RefusalFilter, window: { limit: number; skip: number }): Promise<RefusalLogPage> };
}

export function refusalRoutes(deps: RefusalRoutesDeps): FastifyPluginAsyncTypebox {
  const { channels, refusals } = deps;
  return async (app) => {
    app.get('/refusals', { schema: { querystring: RefusalListQuery, response: { 200: RefusalPageAnswer } } }, async (request) => {
      const user = currentUser(request);
      const parsed = parseRefusalQuery(request.query);
      if (!parsed.ok) throw invalidInput(parsed.problems.map((p) => ({ path: `query${p.path.replace('/', '.')}`, message: p.message })));
      const { query } = parsed;
      let channelIds = query.channelIds;
      if (!isAdmin(user)) {
        // Deleted channels are included: their refusals keep their ACLs, as their transactions do.
        const visible = viewableChannels(user, await channels.list(true));
        if (visible !== 'all') {
          const hidden = channelIds?.find((id) => !visible.has(id));
          if (hidden !== undefined) throw new AppError('FORBIDDEN', `You are not allowed to view the refusals of channel ${hidden}`);
          channelIds ??= [...visible.keys()];
        }
      }
      const filter: RefusalFilter = {
        ...(query.from === undefined ? {} : { from: query.from }),
        ...(query.to === undefined ? {} : { to: query.to }),
        ...(channelIds === undefined ? {} : { channelIds }),
        ...(query.reasons === undefined ? {} : { reasons: query.reasons }),
        ...(query.address === undefined ? {} : { address: query.address }),
      };
      const page = await refusals.page(filter, { limit: query.limit, skip: query.limit * query.page });
      return { items: page.items.map(presentRefusal), total: page.total, refused: page.refused };
    });
  };
}
