/**
 * Contact groups: `GET/POST /groups`, `GET/PUT/DELETE /groups/:id`, admins only (OpenHIM's contact-list-view and
 * contact-list-manage permissions, which its admin role holds). A group that a channel's alert names cannot be
 * deleted: 409 naming those channels (in `details.channels`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ContactGroups } from '../../contacts/groups.js';
import { requireAdmin } from '../guards.js';
import { contactGroupView } from '../views/contact-groups.js';
import { MessageAnswerSchema, NoQuery } from '../schemas/common.js';
import { ContactGroupCreateBody, ContactGroupParams, ContactGroupSchema, ContactGroupUpdateBody } from '../schemas/contact-groups.js';

export interface ContactGroupRoutesDeps {
  contactGroups: ContactGroups;
}

const WORK = 'view or change contact groups';

export function contactGroupRoutes(deps: ContactGroupRoutesDeps): FastifyPluginAsyncTypebox {
  const { contactGroups } = deps;

  return async (app) => {
    app.get('/groups', { schema: { querystring: NoQuery, response: { 200: Type.Array(ContactGroupSchema) } } }, async (request) => {
      requireAdmin(request, WORK);
      return (await contactGroups.list()).map(contactGroupView);
    });

    app.post('/groups', { schema: { querystring: NoQuery, body: ContactGroupCreateBody, response: { 201: ContactGroupSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, WORK);
      const created = await contactGroups.create(request.body);
      request.log.info({ contactGroup: created._id, group: created.group, by: user.email }, 'contact group created');
      return reply.code(201).send(contactGroupView(created));
    });

    app.get('/groups/:id', { schema: { params: ContactGroupParams, querystring: NoQuery, response: { 200: ContactGroupSchema } } }, async (request) => {
      requireAdmin(request, WORK);
      return contactGroupView(await contactGroups.get(request.params.id));
    });

    app.put(
      '/groups/:id',
      { schema: { params: ContactGroupParams, querystring: NoQuery, body: ContactGroupUpdateBody, response: { 200: ContactGroupSchema } } },
      async (request) => {
        const user = requireAdmin(request, WORK);
        const updated = await contactGroups.update(request.params.id, request.body);
        request.log.info({ contactGroup: updated._id, group: updated.group, by: user.email, fields: Object.keys(request.body) }, 'contact group updated');
        return contactGroupView(updated);
      },
    );

    app.delete('/groups/:id', { schema: { params: ContactGroupParams, querystring: NoQuery, response: { 200: MessageAnswerSchema } } }, async (request) => {
      const user = requireAdmin(request, WORK);
      const removed = await contactGroups.remove(request.params.id);
      request.log.info({ contactGroup: removed._id, group: removed.group, by: user.email }, 'contact group deleted');
      return { message: `Contact group ${removed.group} deleted` };
    });
  };
}
