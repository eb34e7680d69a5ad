/**
 * Mediators (COMPAT.md "Mediators"): `GET/POST /mediators`, `GET/DELETE /mediators/:urn`,
 * `POST /mediators/:urn/heartbeat`, `PUT /mediators/:urn/config`, `POST /mediators/:urn/channels`. All are admin work;
 * a mediator calls registration and heartbeat as an admin API user. Passwords are masked in every answer except the
 * heartbeat, which must hand the mediator its real configuration. A mediator fetched with GET may be registered again
 * as it came (read-only fields and nulls ignored, masks standing for the stored passwords).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { castRegistrationValues } from '../../domain/channels/mediator-registration.js';
import { authorOf } from '../../accounts/users.js';
import type { RegistrationDoc } from '../../domain/channels/mediator-registration.js';
import type { MediatorRecord } from '../../storage/records.js';
import type { MediatorRegistry } from '../../mediators/registry.js';
import type { AuditRecorder } from '../../audit/recorder.js';
import { requireAdmin } from '../guards.js';
import { publicChannel } from '../views/channels.js';
import { publicMediator } from '../views/mediators.js';
import { NoQuery } from '../schemas/common.js';
import { PublicChannelSchema } from '../schemas/channels.js';
import { ConfigBody, HeartbeatBody, InstallChannelsBody, MEDIATOR_READ_ONLY_FIELDS, MediatorParams, MediatorRegistrationBody, PublicMediatorSchema } from '../schemas/mediators.js';

export interface MediatorRoutesDeps {
  mediators: MediatorRegistry;
  /** Where a registration is audited (Application Start with the mediator as the application, as OpenHIM does). */
  audit: AuditRecorder;
}

// Admin work, as in OpenHIM: a mediator authenticates as an admin API user, and its configuration may hold credentials.
const WORK = 'view or manage mediators; a mediator must log in as an API user in the admin group';

/** The registration in a document that may have been sent back as fetched: read-only fields dropped, null = not set. */
function registrationOf(body: MediatorRegistrationBody): RegistrationDoc {
  const fields = Object.entries(body).filter(([key, value]) => value !== null && !MEDIATOR_READ_ONLY_FIELDS.includes(key));
  return Object.fromEntries(fields) as unknown as RegistrationDoc;
}

export function mediatorRoutes(deps: MediatorRoutesDeps): FastifyPluginAsyncTypebox {
  const { mediators } = deps;
  const view = (m: MediatorRecord) => publicMediator(m, mediators.isOnline(m));

  return async (app) => {
    const querystring = NoQuery;
    const params = MediatorParams;

    app.get('/mediators', { schema: { querystring, response: { 200: Type.Array(PublicMediatorSchema) } } }, async (request) => {
      requireAdmin(request, WORK);
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
        const user = requireAdmin(request, WORK);
        const { mediator } = await mediators.register(registrationOf(request.body), authorOf(user));
        const host = mediator.endpoints[0]?.host;
        await deps.audit.mediatorRegistered({ name: mediator.name, urn: mediator.urn, version: mediator.version, by: user.email, ...(host === undefined ? {} : { host }) });
        return reply.code(201).send(view(mediator));
      },
    );

    app.get('/mediators/:urn', { schema: { params, querystring, response: { 200: PublicMediatorSchema } } }, async (request) => {
      requireAdmin(request, WORK);
      return view(await mediators.get(request.params.urn));
    });

    app.delete('/mediators/:urn', { schema: { params, querystring } }, async (request) => {
      const by = authorOf(requireAdmin(request, WORK));
      const removed = await mediators.remove(request.params.urn);
      request.log.info({ urn: removed.urn, by: by.name }, 'mediator deleted');
      return { message: `Mediator ${removed.urn} deleted` };
    });

    app.post('/mediators/:urn/heartbeat', { schema: { params, querystring, body: HeartbeatBody } }, async (request, reply) => {
      requireAdmin(request, WORK);
      const config = await mediators.heartbeat(request.params.urn, request.body);
      // An empty body means "nothing new"; OpenHIM's client libraries treat any non-empty body as the configuration.
      if (config === null) return reply.code(200).send();
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(config));
    });

    app.put('/mediators/:urn/config', { schema: { params, querystring, body: ConfigBody, response: { 200: PublicMediatorSchema } } }, async (request) => {
      const by = authorOf(requireAdmin(request, WORK));
      return view(await mediators.updateConfig(request.params.urn, request.body, by));
    });

    app.post(
      '/mediators/:urn/channels',
      { schema: { params, querystring, body: InstallChannelsBody, response: { 201: Type.Array(PublicChannelSchema) } } },
      async (request, reply) => {
        const by = authorOf(requireAdmin(request, WORK));
        const installed = await mediators.installChannels(request.params.urn, request.body, by);
        return reply.code(201).send(installed.map((c) => publicChannel(c)));
      },
    );
  };
}
