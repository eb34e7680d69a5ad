/** Roles: `GET/POST /roles`, `GET/PUT/DELETE /roles/:name`. A role lives in channels' `allow` and clients' `roles`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { isAdmin } from '../../domain/permissions.js';
import { findRole, listRoles, planCreateRole, planDeleteRole, planUpdateRole } from '../../domain/roles.js';
import type { RolePlan, RoleView, RoleWorld } from '../../domain/roles.js';
import type { Store } from '../../storage/store.js';
import { currentUser } from '../auth/hook.js';
import { NoQuery } from '../schemas/common.js';
import { RoleCreateBody, RoleParams, RoleSchema, RoleUpdateBody } from '../schemas/roles.js';

export interface RoleRoutesDeps {
  store: Store;
}

function requireAdmin(request: FastifyRequest): void {
  if (!isAdmin(currentUser(request))) throw new AppError('FORBIDDEN', 'Only admins can view or change roles');
}

export function roleRoutes(deps: RoleRoutesDeps): FastifyPluginAsyncTypebox {
  const { store } = deps;
  // Role changes read and rewrite several documents; running them one at a time keeps two requests from undoing each other.
  let queue: Promise<unknown> = Promise.resolve();
  function serially<T>(job: () => Promise<T>): Promise<T> {
    const run = queue.then(job, job);
    queue = run.catch(() => undefined);
    return run;
  }

  async function world(): Promise<RoleWorld> {
    const [channels, clients] = await Promise.all([store.channels.find({ status: { $ne: 'deleted' } }), store.clients.find({})]);
    return { channels, clients };
  }

  async function apply(result: RolePlan): Promise<RoleView> {
    if (!result.ok) {
      const { code, message, path } = result.problem;
      throw new AppError(code, code === 'NOT_FOUND' ? message : `${path} ${message}`, code === 'NOT_FOUND' ? null : [{ path, message }]);
    }
    const now = new Date();
    for (const channel of result.changes.channels) await store.channels.updateById(channel._id, { set: { allow: channel.allow, updatedAt: now } });
    for (const client of result.changes.clients) await store.clients.updateById(client._id, { set: { roles: client.roles, updatedAt: now } });
    return result.role;
  }

  return async (app) => {
    app.get('/roles', { schema: { querystring: NoQuery, response: { 200: Type.Array(RoleSchema) } } }, async (request) => {
      requireAdmin(request);
      return listRoles(await world());
    });

    app.get('/roles/:name', { schema: { params: RoleParams, querystring: NoQuery, response: { 200: RoleSchema } } }, async (request) => {
      requireAdmin(request);
      const role = findRole(await world(), request.params.name);
      if (role === null) throw new AppError('NOT_FOUND', `No role named ${request.params.name}`);
      return role;
    });

    app.post('/roles', { schema: { querystring: NoQuery, body: RoleCreateBody, response: { 201: RoleSchema } } }, async (request, reply) => {
      requireAdmin(request);
      const role = await serially(async () => apply(planCreateRole(await world(), request.body)));
      request.log.info({ role: role.name, by: currentUser(request).email }, 'role created');
      return reply.code(201).send(role);
    });

    app.put('/roles/:name', { schema: { params: RoleParams, querystring: NoQuery, body: RoleUpdateBody, response: { 200: RoleSchema } } }, async (request) => {
      requireAdmin(request);
      const role = await serially(async () => apply(planUpdateRole(await world(), request.params.name, request.body)));
      request.log.info({ role: request.params.name, as: role.name, by: currentUser(request).email, fields: Object.keys(request.body) }, 'role updated');
      return role;
    });

    app.delete('/roles/:name', { schema: { params: RoleParams, querystring: NoQuery } }, async (request) => {
      requireAdmin(request);
      await serially(async () => apply(planDeleteRole(await world(), request.params.name)));
      request.log.info({ role: request.params.name, by: currentUser(request).email }, 'role deleted');
      return { message: `Role ${request.params.name} deleted` };
    });
  };
}
