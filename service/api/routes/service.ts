/**
 * The service's own status: the public `GET /heartbeat` (OpenHIM's uptimes of the core and of each mediator) and
 * `GET /health` (the store's state; 503 until it is ready), and `GET /about` for any user (versions and time zone;
 * admins also get the ports being listened on).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AboutAnswer, HealthAnswer, HeartbeatAnswer, ServicePort } from '../../contracts/api.js';
import { isAdmin } from '../../domain/permissions.js';
import type { Store } from '../../storage/store.js';
import { currentUser } from '../auth/hook.js';
import { AboutAnswerSchema } from '../schemas/service.js';
import { NoQuery } from '../schemas/common.js';

export interface ServiceRoutesDeps {
  store: Store;
  version: string;
  /** Mediator uptimes for the heartbeat, by URN; null for a mediator silent for longer than `mediators.offlineAfterSeconds`. */
  mediatorUptimes: () => Promise<Record<string, number | null>>;
  /** The ports being listened on (the real ones, not only the configured ones); empty until the service is up. */
  listeningPorts: () => readonly ServicePort[];
}

export function serviceRoutes(deps: ServiceRoutesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/heartbeat', { config: { public: true }, schema: { querystring: NoQuery } }, async (): Promise<HeartbeatAnswer> => ({
      master: process.uptime(),
      mediators: await deps.mediatorUptimes(),
      now: Date.now(),
    }));

    app.get('/about', { schema: { querystring: NoQuery, response: { 200: AboutAnswerSchema } } }, (request): AboutAnswer => ({
      currentCoreVersion: deps.version,
      serverTimezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      product: 'Junction',
      version: deps.version,
      nodeVersion: process.version,
      ...(isAdmin(currentUser(request)) ? { ports: [...deps.listeningPorts()] } : {}),
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
