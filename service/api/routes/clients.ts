/**
 * Clients: `GET/POST /clients`, `GET/PUT/DELETE /clients/:clientId` (`?byNamedClientID=true` on GET),
 * `GET /clients/domain/:clientDomain`: admins only. `GET /clients/:clientId/clientName`: any signed-in user, as in
 * OpenHIM, whose console shows a transaction's client by name to users who may not read clients.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ClientAccounts } from '../../accounts/clients.js';
import { currentUser } from '../auth/hook.js';
import { requireAdmin } from '../guards.js';
import { publicClient } from '../views/clients.js';
import { NoQuery } from '../schemas/common.js';
import { ClientCreateBody, ClientDomainParams, ClientLookupQuery, ClientNameSchema, ClientParams, ClientUpdateBody, PublicClientSchema } from '../schemas/clients.js';

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

    app.get('/clients/:clientId', { schema: { params: ClientParams, querystring: ClientLookupQuery, response: { 200: PublicClientSchema } } }, async (request) => {
      requireAdmin(request, WORK);
      const { clientId } = request.params;
      return publicClient(await (request.query.byNamedClientID === true ? clients.getByClientID(clientId) : clients.get(clientId)));
    });

    app.get('/clients/:clientId/clientName', { schema: { params: ClientParams, querystring: NoQuery, response: { 200: ClientNameSchema } } }, async (request) => {
      currentUser(request);
      return { name: (await clients.get(request.params.clientId)).name };
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
