/** Clients: `GET/POST /clients`, `GET/PUT/DELETE /clients/:clientId`, `GET /clients/domain/:clientDomain`. Admins only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ClientAccounts } from '../../accounts/clients.js';
import { requireAdmin } from '../guards.js';
import { publicClient } from '../views/clients.js';
import { NoQuery } from '../schemas/common.js';
import { ClientCreateBody, ClientDomainParams, ClientParams, ClientUpdateBody, PublicClientSchema } from '../schemas/clients.js';

export interface ClientRoutesDeps {
  clients: ClientAccounts;
}

const WORK = 'view or change clients';

export function clientRoutes(deps: ClientRoutesDeps): FastifyPluginAsyncTypebox {
  const { clients } = deps;

  return async (app) => {
    app.get('/clients', { schema: { querystring: NoQuery, response: { 200: Type.Array(PublicClientSchema) } } }, async (request) => {
      requireAdmin(request, WORK);
      return (await clients.list()).map(publicClient);
    });

    app.post('/clients', { schema: { querystring: NoQuery, body: ClientCreateBody, response: { 201: PublicClientSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const created = await clients.create(request.body);
      request.log.info({ clientID: created.clientID, by: user.email }, 'client created');
      return reply.code(201).send(publicClient(created));
    });

    app.get('/clients/domain/:clientDomain', { schema: { params: ClientDomainParams, querystring: NoQuery, response: { 200: PublicClientSchema } } }, async (request) => {
      requireAdmin(request, WORK);
      return publicClient(await clients.getByDomain(request.params.clientDomain));
    });

    app.get('/clients/:clientId', { schema: { params: ClientParams, querystring: NoQuery, response: { 200: PublicClientSchema } } }, async (request) => {
      requireAdmin(request, WORK);
      return publicClient(await clients.get(request.params.clientId));
    });

    app.put(
      '/clients/:clientId',
      { schema: { params: ClientParams, querystring: NoQuery, body: ClientUpdateBody, response: { 200: PublicClientSchema } } },
      async (request) => {
        const user = requireAdmin(request, WORK);
        const updated = await clients.update(request.params.clientId, request.body);
        request.log.info({ clientID: updated.clientID, by: user.email, fields: Object.keys(request.body) }, 'client updated');
        return publicClient(updated);
      },
    );

    app.delete('/clients/:clientId', { schema: { params: ClientParams, querystring: NoQuery } }, async (request) => {
      const user = requireAdmin(request, WORK);
      const removed = await clients.remove(request.params.clientId);
      request.log.info({ clientID: removed.clientID, by: user.email }, 'client deleted');
      return { message: `Client ${removed.clientID} deleted` };
    });
  };
}
