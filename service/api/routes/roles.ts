/** Roles: `GET/POST /roles`, `GET/PUT/DELETE /roles/:name`. A role lives in channels' `allow` and clients' `roles`. Admins only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Roles } from '../../accounts/roles.js';
import { requireAdmin } from '../guards.js';
import { NoQuery } from '../schemas/common.js';
import { RoleCreateBody, RoleParams, RoleSchema, RoleUpdateBody } from '../schemas/roles.js';

export interface RoleRoutesDeps {
  roles: Roles;
}

const WORK = 'view or change roles';

export function roleRoutes(deps: RoleRoutesDeps): FastifyPluginAsyncTypebox {
  const { roles } = deps;

  return async (app) => {
    app.get('/roles', { schema: { querystring: NoQuery, response: { 200: Type.Array(RoleSchema) } } }, async (request) => {
      requireAdmin(request, WORK);
      return roles.list();
    });

    app.get('/roles/:name', { schema: { params: RoleParams, querystring: NoQuery, response: { 200: RoleSchema } } }, async (request) => {
      requireAdmin(request, WORK);
      return roles.get(request.params.name);
    });

    app.post('/roles', { schema: { querystring: NoQuery, body: RoleCreateBody, response: { 201: RoleSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const role = await roles.create(request.body);
      request.log.info({ role: role.name, by: user.email }, 'role created');
      return reply.code(201).send(role);
    });

    app.put('/roles/:name', { schema: { params: RoleParams, querystring: NoQuery, body: RoleUpdateBody, response: { 200: RoleSchema } } }, async (request) => {
      const user = requireAdmin(request, WORK);
      const role = await roles.update(request.params.name, request.body);
      request.log.info({ role: request.params.name, as: role.name, by: user.email, fields: Object.keys(request.body) }, 'role updated');
      return role;
    });

    app.delete('/roles/:name', { schema: { params: RoleParams, querystring: NoQuery } }, async (request) => {
      const user = requireAdmin(request, WORK);
      await roles.remove(request.params.name);
      request.log.info({ role: request.params.name, by: user.email }, 'role deleted');
      return { message: `Role ${request.params.name} deleted` };
    });
  };
}
