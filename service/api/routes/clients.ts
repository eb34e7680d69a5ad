/** Clients: `GET/POST /clients`, `GET/PUT/DELETE /clients/:clientId`, `GET /clients/domain/:clientDomain`. Admins only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { isAdmin } from '../../domain/permissions.js';
import { clientRolesProblem } from '../../domain/roles.js';
import type { ClientRolesInput } from '../../domain/roles.js';
import { secretChanges } from '../../accounts/client-credentials.js';
import type { ClientRecord } from '../../storage/records.js';
import type { Store } from '../../storage/store.js';
import { UniqueConstraintError } from '../../storage/store.js';
import { currentUser } from '../auth/hook.js';
import { NoQuery } from '../schemas/common.js';
import { CLIENT_OPTIONAL_FIELDS, ClientCreateBody, ClientDomainParams, ClientParams, ClientUpdateBody, PublicClientSchema, publicClient } from '../schemas/clients.js';

export interface ClientRoutesDeps {
  store: Store;
}

// Stored field → the body field a caller sets it with, so a 409 names what to change.
const bodyField: Record<string, string> = { clientID: 'clientID', customTokenHash: 'customToken', certFingerprint: 'certificate' };

function requireAdmin(request: FastifyRequest): void {
  if (!isAdmin(currentUser(request))) throw new AppError('FORBIDDEN', 'Only admins can view or change clients');
}

function conflict(err: unknown): never {
  if (err instanceof UniqueConstraintError) {
    const field = bodyField[err.field] ?? err.field;
    throw new AppError('CONFLICT', `Another client already uses this ${field}`, [{ path: `body.${field}`, message: 'already in use by another client' }]);
  }
  throw err;
}

export function clientRoutes(deps: ClientRoutesDeps): FastifyPluginAsyncTypebox {
  const { store } = deps;

  async function load(id: string): Promise<ClientRecord> {
    const client = await store.clients.findById(id);
    if (client === null) throw new AppError('NOT_FOUND', `No client with _id ${id}`);
    return client;
  }

  /**
   * Channel `allow` lists mix client ids and role names, so a name must not be both (domain/roles.ts). An entry found
   * only in `allow` is not checked: it may be a grant made before the client was registered.
   */
  async function refuseRoleClash(client: ClientRolesInput, sent: { clientID: boolean; roles: boolean }): Promise<void> {
    const problem = clientRolesProblem(await store.clients.find({}), client, sent);
    if (problem !== null) throw new AppError(problem.code, `${problem.path} ${problem.message}`, [{ path: problem.path, message: problem.message }]);
  }

  /** Keeps channel grants pointing at the client when its clientID changes, and drops them when it is deleted. */
  async function regrant(from: string, to: string | null): Promise<void> {
    const channels = await store.channels.find({ allow: from });
    for (const channel of channels) {
      const allow = to === null ? channel.allow.filter((a) => a !== from) : [...new Set(channel.allow.map((a) => (a === from ? to : a)))];
      await store.channels.updateById(channel._id, { set: { allow, updatedAt: new Date() } });
    }
  }

  return async (app) => {
    app.get('/clients', { schema: { querystring: NoQuery, response: { 200: Type.Array(PublicClientSchema) } } }, async (request) => {
      requireAdmin(request);
      return (await store.clients.find({}, { sort: { clientID: 1 } })).map(publicClient);
    });

    app.post('/clients', { schema: { querystring: NoQuery, body: ClientCreateBody, response: { 201: PublicClientSchema } } }, async (request, reply) => {
      requireAdmin(request);
      const body = request.body;
      const roles = [...new Set(body.roles ?? [])];
      await refuseRoleClash({ clientID: body.clientID, roles }, { clientID: true, roles: true });
      const secrets = await secretChanges(body);
      const now = new Date();
      const record: Omit<ClientRecord, '_id'> = { clientID: body.clientID, name: body.name, roles, ...secrets.set, createdAt: now, updatedAt: now };
      for (const field of CLIENT_OPTIONAL_FIELDS) {
        const value = body[field];
        if (value !== undefined) record[field] = value;
      }
      const created = await store.clients.insert(record).catch(conflict);
      request.log.info({ clientID: created.clientID, by: currentUser(request).email }, 'client created');
      return reply.code(201).send(publicClient(created));
    });

    app.get('/clients/domain/:clientDomain', { schema: { params: ClientDomainParams, querystring: NoQuery, response: { 200: PublicClientSchema } } }, async (request) => {
      requireAdmin(request);
      const client = await store.clients.findOne({ clientDomain: request.params.clientDomain });
      if (client === null) throw new AppError('NOT_FOUND', `No client with domain ${request.params.clientDomain}`);
      return publicClient(client);
    });

    app.get('/clients/:clientId', { schema: { params: ClientParams, querystring: NoQuery, response: { 200: PublicClientSchema } } }, async (request) => {
      requireAdmin(request);
      return publicClient(await load(request.params.clientId));
    });

    app.put(
      '/clients/:clientId',
      { schema: { params: ClientParams, querystring: NoQuery, body: ClientUpdateBody, response: { 200: PublicClientSchema } } },
      async (request) => {
        requireAdmin(request);
        const target = await load(request.params.clientId);
        const body = request.body;
        const renamed = body.clientID !== undefined && body.clientID !== target.clientID ? body.clientID : undefined;
        const roles = body.roles === undefined ? undefined : [...new Set(body.roles)];
        const after = { _id: target._id, clientID: renamed ?? target.clientID, roles: roles ?? target.roles };
        await refuseRoleClash(after, { clientID: renamed !== undefined, roles: roles !== undefined });
        const secrets = await secretChanges(body);
        const set: Partial<Omit<ClientRecord, '_id'>> = { ...secrets.set, updatedAt: new Date() };
        const unset: Exclude<keyof ClientRecord, '_id'>[] = [...secrets.unset];
        if (body.clientID !== undefined) set.clientID = body.clientID;
        if (body.name !== undefined) set.name = body.name;
        if (roles !== undefined) set.roles = roles;
        for (const field of CLIENT_OPTIONAL_FIELDS) {
          const value = body[field];
          if (value === null) unset.push(field);
          else if (value !== undefined) set[field] = value;
        }
        const updated = await store.clients.updateById(target._id, { set, unset }).catch(conflict);
        if (updated === null) throw new AppError('NOT_FOUND', `No client with _id ${target._id}`);
        if (renamed !== undefined) await regrant(target.clientID, renamed);
        request.log.info({ clientID: updated.clientID, by: currentUser(request).email, fields: Object.keys(body) }, 'client updated');
        return publicClient(updated);
      },
    );

    app.delete('/clients/:clientId', { schema: { params: ClientParams, querystring: NoQuery } }, async (request) => {
      requireAdmin(request);
      const target = await load(request.params.clientId);
      await store.clients.removeById(target._id);
      // A later client reusing this clientID must not inherit the old one's channel access.
      await regrant(target.clientID, null);
      request.log.info({ clientID: target.clientID, by: currentUser(request).email }, 'client deleted');
      return { message: `Client ${target.clientID} deleted` };
    });
  };
}
