/** Service endpoints: `GET /heartbeat`, `GET /about`, and the unauthenticated `GET /health`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AboutAnswer, HealthAnswer, HeartbeatAnswer } from '../../contracts/api.js';
import type { Store } from '../../storage/store.js';
import { NoQuery } from '../schemas/common.js';

export interface ServiceRoutesDeps {
  store: Store;
  version: string;
  /** Mediator uptimes for the heartbeat; null for a mediator silent for over 60 s. Empty until mediators exist. */
  mediatorUptimes: () => Promise<Record<string, number | null>>;
}

export function serviceRoutes(deps: ServiceRoutesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/heartbeat', { config: { public: true }, schema: { querystring: NoQuery } }, async (): Promise<HeartbeatAnswer> => ({
      master: process.uptime(),
      mediators: await deps.mediatorUptimes(),
      now: Date.now(),
    }));

    app.get('/about', { schema: { querystring: NoQuery } }, (): AboutAnswer => ({
      currentCoreVersion: deps.version,
      serverTimezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      product: 'Junction',
      version: deps.version,
      nodeVersion: process.version,
    }));

    app.get('/health', { config: { public: true }, schema: { querystring: NoQuery } }, async (_request, reply): Promise<HealthAnswer> => {
      const health = deps.store.health();
      const ok = health.state === 'ready';
      void reply.code(ok ? 200 : 503);
      return {
        status: ok ? 'ok' : 'unavailable',
        store: { engine: health.engine, state: health.state, problems: health.problems.length },
        uptimeSeconds: Math.floor(process.uptime()),
      };
    });
  };
}
