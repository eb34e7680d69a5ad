/**
 * Channels: `GET/POST /channels`, `GET/PUT/DELETE /channels/:channelId`, `GET /channels/:channelId/audits` (its change
 * history, OpenHIM's patch-history shape), `POST /channels/:channelId/trigger` (fires a polling channel now). Admins
 * change and trigger channels and read their history; groups in a channel's ACLs may read it. What a change
 * does, including keeping a deleted channel that transactions refer to, is the catalogue's (channels/catalogue.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { canViewChannel, isAdmin } from '../../domain/access/permissions.js';
import { authorOf } from '../../accounts/users.js';
import { READ_ONLY_CHANNEL_FIELDS } from '../../domain/channels/channel-body.js';
import type { ChannelCatalogue } from '../../channels/catalogue.js';
import type { ChannelRecord } from '../../storage/records.js';
import { currentUser } from '../auth/hook.js';
import { requireAdmin } from '../guards.js';
import { publicChannel, publicChannelAudit } from '../views/channels.js';
import { NoQuery } from '../schemas/common.js';
import { ChannelAuditSchema, ChannelCreateBody, ChannelListQuery, ChannelParams, ChannelUpdateBody, PublicChannelSchema } from '../schemas/channels.js';

export interface ChannelRoutesDeps {
  channels: ChannelCatalogue;
  /** Why nobody may use a channel (null: someone may), over the clients as they are now: shown in every answer (issue 35). */
  channelAdmission: () => Promise<(channel: ChannelRecord) => string | null>;
}

export function channelRoutes(deps: ChannelRoutesDeps): FastifyPluginAsyncTypebox {
  const { channels, channelAdmission } = deps;

  return async (app) => {
    const params = ChannelParams;
    const querystring = NoQuery;

    app.get('/channels', { schema: { querystring: ChannelListQuery, response: { 200: Type.Array(PublicChannelSchema) } } }, async (request) => {
      const user = currentUser(request);
      const all = await channels.list(request.query.includeDeleted === true);
      const admits = await channelAdmission();
      return all.filter((c) => canViewChannel(user, c)).map((c) => publicChannel(c, channels.listenerOf(c), admits(c)));
    });

    app.post('/channels', { schema: { querystring, body: ChannelCreateBody, response: { 201: PublicChannelSchema } } }, async (request, reply) => {
      const user = requireAdmin(request, 'create channels');
      const created = await channels.create(request.body, authorOf(user));
      request.log.info({ channel: created.name, by: user.email }, 'channel created');
      await channels.listenersSettled();
      const admitsNobody = (await channelAdmission())(created);
      if (admitsNobody !== null) request.log.warn({ channel: created.name, by: user.email, admitsNobody }, 'channel saved that admits nobody');
      return reply.code(201).send(publicChannel(created, channels.listenerOf(created), admitsNobody));
    });

    app.get('/channels/:channelId', { schema: { params, querystring, response: { 200: PublicChannelSchema } } }, async (request) => {
      const user = currentUser(request);
      const channel = await channels.find(request.params.channelId);
      // Non-admins get 403 for unknown ids too, so ids of channels they cannot see are not confirmed.
      if (!isAdmin(user) && (channel === null || !canViewChannel(user, channel))) throw new AppError('FORBIDDEN', 'You are not allowed to view this channel');
      if (channel === null) throw new AppError('NOT_FOUND', `No channel with id ${request.params.channelId}`);
      return publicChannel(channel, channels.listenerOf(channel), (await channelAdmission())(channel));
    });

    app.put('/channels/:channelId', { schema: { params, querystring, body: ChannelUpdateBody, response: { 200: PublicChannelSchema } } }, async (request) => {
      const user = requireAdmin(request, 'change channels');
      const { channel, restoring } = await channels.update(request.params.channelId, request.body, authorOf(user));
      request.log.info({ channel: channel.name, by: user.email, fields: Object.keys(request.body).filter((k) => !(READ_ONLY_CHANNEL_FIELDS as readonly string[]).includes(k)) }, restoring ? 'channel restored' : 'channel updated');
      await channels.listenersSettled();
      const admitsNobody = (await channelAdmission())(channel);
      if (admitsNobody !== null) request.log.warn({ channel: channel.name, by: user.email, admitsNobody }, 'channel saved that admits nobody');
      return publicChannel(channel, channels.listenerOf(channel), admitsNobody);
    });

    app.delete('/channels/:channelId', { schema: { params, querystring } }, async (request) => {
      const user = requireAdmin(request, 'delete channels');
      const { channel, kept } = await channels.remove(request.params.channelId, authorOf(user));
      request.log.info({ channel: channel.name, by: user.email, kept }, 'channel deleted');
      await channels.listenersSettled();
      return { message: `Channel ${channel.name} deleted` };
    });

    // OpenHIM: admins only, and an unknown id answers an empty list. Junction keeps the history of deleted channels.
    app.get('/channels/:channelId/audits', { schema: { params, querystring, response: { 200: Type.Array(ChannelAuditSchema) } } }, async (request) => {
      requireAdmin(request, 'read the change history of channels');
      return (await channels.history(request.params.channelId)).map(publicChannelAudit);
    });

    app.post('/channels/:channelId/trigger', { schema: { params, querystring } }, async (request) => {
      const user = requireAdmin(request, 'trigger channels');
      const { channel, transactionId, alreadyRunning } = await channels.trigger(request.params.channelId);
      request.log.info({ channel: channel.name, by: user.email, transactionId, alreadyRunning }, 'polling channel triggered');
      const message = alreadyRunning ? `Channel ${channel.name} is still polling from its previous trigger; no second poll was started` : `Channel ${channel.name} triggered`;
      return { message, transactionId, alreadyRunning };
    });
  };
}
