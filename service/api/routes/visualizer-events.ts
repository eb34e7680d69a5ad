/**
 * `GET /events/:receivedTime` (OPENHIM-FACTS 8.1): the visualizer's events since an instant. OpenHIM lets only
 * admins read them; here any user may, and sees the events of the channels they may view transactions of, as the live
 * feed does.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { VisualizerEvent } from '../../contracts/visualizer.js';
import { canViewChannel, isAdmin } from '../../domain/access/permissions.js';
import type { Store } from '../../storage/store.js';
import type { VisualizerRecorder } from '../../visualizer/recorder.js';
import { currentUser } from '../auth/hook.js';
import { EventsAnswer, EventsParams } from '../schemas/logs.js';
import { NoQuery } from '../schemas/common.js';

export interface VisualizerRoutesDeps {
  visualizer: VisualizerRecorder;
  store: Pick<Store, 'channels'>;
}

export function visualizerEventRoutes(deps: VisualizerRoutesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/events/:receivedTime', { schema: { params: EventsParams, querystring: NoQuery, response: { 200: EventsAnswer } } }, async (request) => {
      const user = currentUser(request);
      const events = deps.visualizer.since(Number(request.params.receivedTime));
      if (isAdmin(user)) return { events };
      // One lookup per channel named, however many events it has.
      const visible = new Map<string, boolean>();
      for (const id of new Set(events.map((e) => e.channelID))) {
        const channel = await deps.store.channels.findById(id);
        visible.set(id, channel !== null && canViewChannel(user, channel));
      }
      return { events: events.filter((e: VisualizerEvent) => visible.get(e.channelID) === true) };
    });
  };
}
