/**
 * Mediators (COMPAT.md "Mediators"): `GET/POST /mediators`, `GET/DELETE /mediators/:urn`,
 * `POST /mediators/:urn/heartbeat`, `PUT /mediators/:urn/config`, `POST /mediators/:urn/channels`. All are admin work;
 * a mediator calls registration and heartbeat as an admin API user. Passwords are masked in every answer except the
 * heartbeat, which must hand the mediator its real configuration.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { canManageMediators } from '../../domain/permissions.js';
import { maskConfig } from '../../domain/mediator-config.js';
import { castRegistrationValues } from '../../domain/mediator-registration.js';
import { PASSWORD_MASK } from '../../domain/password-mask.js';
import type { MediatorRecord, MediatorRoute, UserRecord } from '../../storage/records.js';
import type { MediatorRegistry } from '../../mediators/registry.js';
import { currentUser } from '../auth/hook.js';
import { NoQuery } from '../schemas/common.js';
import { PublicChannelSchema } from '../schemas/channels.js';
import { ConfigBody, HeartbeatBody, InstallChannelsBody, MediatorParams, MediatorRegistrationBody, PublicMediatorSchema } from '../schemas/mediators.js';
import type { PublicMediator } from '../schemas/mediators.js';
import { publicChannel } from './channels.js';

export interface MediatorRoutesDeps {
  mediators: MediatorRegistry;
}

function maskRoute<T extends MediatorRoute>(route: T): T {
  return route.password === undefined || route.password === '' ? route : { ...route, password: PASSWORD_MASK };
}

/** The answer view: passwords masked (routes and config), dates as text, online status from the heartbeats. */
function publicMediator(mediator: MediatorRecord, online: boolean): PublicMediator {
  const { _configModifiedTS, _lastHeartbeat, createdAt, updatedAt, ...rest } = mediator;
  return {
    ...rest,
    endpoints: mediator.endpoints.map(maskRoute),
    defaultChannelConfig: mediator.defaultChannelConfig.map((c) => ({ ...c, routes: c.routes.map(maskRoute) })) as PublicMediator['defaultChannelConfig'],
    config: maskConfig(mediator.configDefs, mediator.config),
    online,
    ...(_lastHeartbeat === undefined ? {} : { _lastHeartbeat: _lastHeartbeat.toISOString() }),
    ...(_configModifiedTS === undefined ? {} : { _configModifiedTS: _configModifiedTS.toISOString() }),
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

function requireManager(user: UserRecord): { id: string; name: string } {
  const decision = canManageMediators(user);
  if (!decision.allowed) throw new AppError('FORBIDDEN', decision.reason);
  return { id: user._id, name: user.email };
}

export function mediatorRoutes(deps: MediatorRoutesDeps): FastifyPluginAsyncTypebox {
  const { mediators } = deps;
  const view = (m: MediatorRecord) => publicMediator(m, mediators.isOnline(m));

  return async (app) => {
    const querystring = NoQuery;
    const params = MediatorParams;

    app.get('/mediators', { schema: { querystring, response: { 200: Type.Array(PublicMediatorSchema) } } }, async (request) => {
      requireManager(currentUser(request));
      return (await mediators.list()).map(view);
    });

    app.post(
      '/mediators',
      {
        schema: { querystring, body: MediatorRegistrationBody, response: { 201: PublicMediatorSchema } },
        // OpenHIM casts "4000" and "true" in routes, and registration files in the field depend on it.
        preValidation: async (request) => castRegistrationValues(request.body),
      },
      async (request, reply) => {
        const by = requireManager(currentUser(request));
        const { mediator } = await mediators.register(request.body, by);
        return reply.code(201).send(view(mediator));
      },
    );

    app.get('/mediators/:urn', { schema: { params, querystring, response: { 200: PublicMediatorSchema } } }, async (request) => {
      requireManager(currentUser(request));
      return view(await mediators.get(request.params.urn));
    });

    app.delete('/mediators/:urn', { schema: { params, querystring } }, async (request) => {
      const by = requireManager(currentUser(request));
      const removed = await mediators.remove(request.params.urn);
      request.log.info({ urn: removed.urn, by: by.name }, 'mediator deleted');
      return { message: `Mediator ${removed.urn} deleted` };
    });

    app.post('/mediators/:urn/heartbeat', { schema: { params, querystring, body: HeartbeatBody } }, async (request, reply) => {
      requireManager(currentUser(request));
      const config = await mediators.heartbeat(request.params.urn, request.body);
      // An empty body means "nothing new"; OpenHIM's client libraries treat any non-empty body as the configuration.
      if (config === null) return reply.code(200).send();
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(config));
    });

    app.put('/mediators/:urn/config', { schema: { params, querystring, body: ConfigBody, response: { 200: PublicMediatorSchema } } }, async (request) => {
      const by = requireManager(currentUser(request));
      return view(await mediators.updateConfig(request.params.urn, request.body, by));
    });

    app.post(
      '/mediators/:urn/channels',
      { schema: { params, querystring, body: InstallChannelsBody, response: { 201: Type.Array(PublicChannelSchema) } } },
      async (request, reply) => {
        const by = requireManager(currentUser(request));
        const installed = await mediators.installChannels(request.params.urn, request.body, by);
        return reply.code(201).send(installed.map(publicChannel));
      },
    );
  };
}
