/**
 * Channels: `GET/POST /channels`, `GET/PUT/DELETE /channels/:channelId`, `POST /channels/:channelId/trigger` (fires a
 * polling channel now). Admins change and trigger channels; groups in a channel's ACLs may read it.
 *
 * A channel deleted while transactions refer to it is kept with status `deleted`, as in OpenHIM: GET still shows it,
 * and a PUT that sets `status` to enabled or disabled restores it. Its name is free for other channels meanwhile.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { AppError } from '../../errors.js';
import { canViewChannel, isAdmin } from '../../domain/permissions.js';
import { channelProblems } from '../../domain/channel-rules.js';
import { channelDraft } from '../../domain/channel-draft.js';
import { PASSWORD_MASK } from '../../domain/password-mask.js';
import type { ValidationProblem } from '../../contracts/api.js';
import type { ChannelRecord, RouteRecord, UserRecord } from '../../storage/records.js';
import type { Changes, Store } from '../../storage/store.js';
import { UniqueConstraintError } from '../../storage/store.js';
import { ChannelNameTakenError } from '../../storage/live-channel-names.js';
import { currentUser } from '../auth/hook.js';
import { NoQuery } from '../schemas/common.js';
import { ChannelCreateBody, ChannelListQuery, ChannelParams, ChannelUpdateBody, PublicChannelSchema } from '../schemas/channels.js';

/** What answers show instead of a route password; sent back in a PUT, it keeps the stored password. */
export { PASSWORD_MASK };

export interface ChannelRoutesDeps {
  store: Store;
  /** When present and true, DELETE marks the channel `deleted` so its transactions keep their channel. */
  hasTransactions?: (channelId: string) => Promise<boolean>;
  /** Fires one tick of a polling channel now (or joins the one in flight); undefined until the schedulers run. */
  triggerPolling: (channelId: string) => { transactionId: string; alreadyRunning: boolean } | undefined;
}

type PublicChannel = Static<typeof PublicChannelSchema>;

const SERVICE_FIELDS = ['_id', 'createdAt', 'updatedAt', 'updatedBy'] as const;

/** Swaps masks sent back for the stored password of the route with the same name; a mask with nothing behind it is a problem. */
function unmaskPasswords(routes: RouteRecord[], stored: readonly RouteRecord[]): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  routes.forEach((route, i) => {
    if (route.password !== PASSWORD_MASK) return;
    const previous = stored.find((r) => r.name === route.name)?.password;
    if (previous === undefined) problems.push({ path: `body.routes.${i}.password`, message: 'is the mask shown in answers; send the real password' });
    else route.password = previous;
  });
  return problems;
}

function refuseIfInvalid(problems: ValidationProblem[]): void {
  const first = problems[0];
  if (first !== undefined) throw new AppError('VALIDATION_FAILED', `${first.path} ${first.message}`, problems);
}

/** Maps a taken unique field to 409; a restore is told how to get past the clash. */
function conflict(err: unknown, restoring = false): never {
  if (err instanceof ChannelNameTakenError && restoring) {
    const { holder } = err;
    const message =
      `is used by channel "${holder.name}" (_id ${holder._id}), which is not deleted; ` +
      'to restore this channel, give it another name in the same request: {"status": "enabled", "name": "<new name>"}';
    throw new AppError('CONFLICT', `body.name ${message}`, [{ path: 'body.name', message }]);
  }
  if (err instanceof UniqueConstraintError) {
    const problem = { path: `body.${err.field}`, message: 'is already used by another channel' };
    throw new AppError('CONFLICT', `${problem.path} ${problem.message}`, [problem]);
  }
  throw err;
}

/** The answer view: dates as text, route passwords masked. */
export function publicChannel(channel: ChannelRecord): PublicChannel {
  return {
    ...channel,
    routes: channel.routes.map((r) => (r.password === undefined ? r : { ...r, password: PASSWORD_MASK })),
    createdAt: channel.createdAt.toISOString(),
    updatedAt: channel.updatedAt.toISOString(),
  };
}

function requireAdmin(user: UserRecord, action: string): void {
  if (!isAdmin(user)) throw new AppError('FORBIDDEN', `Only admins can ${action} channels`);
}

export function channelRoutes(deps: ChannelRoutesDeps): FastifyPluginAsyncTypebox {
  const channels = deps.store.channels;

  /** The channel with this id, deleted ones included (they stay viewable and restorable). */
  async function load(id: string): Promise<ChannelRecord> {
    const channel = await channels.findById(id);
    if (channel === null) throw new AppError('NOT_FOUND', `No channel with id ${id}`);
    return channel;
  }

  return async (app) => {
    const params = ChannelParams;
    const querystring = NoQuery;

    app.get('/channels', { schema: { querystring: ChannelListQuery, response: { 200: Type.Array(PublicChannelSchema) } } }, async (request) => {
      const user = currentUser(request);
      const query = request.query.includeDeleted === true ? {} : { status: { $ne: 'deleted' as const } };
      const all = await channels.find(query, { sort: { name: 1 } });
      return all.filter((c) => canViewChannel(user, c)).map(publicChannel);
    });

    app.post('/channels', { schema: { querystring, body: ChannelCreateBody, response: { 201: PublicChannelSchema } } }, async (request, reply) => {
      const user = currentUser(request);
      requireAdmin(user, 'create');
      const draft = channelDraft(request.body);
      refuseIfInvalid([...unmaskPasswords(draft.routes, []), ...channelProblems(draft)]);
      const now = new Date();
      const created = await channels
        .insert({ ...draft, createdAt: now, updatedAt: now, updatedBy: { id: user._id, name: user.email } })
        .catch(conflict);
      request.log.info({ channel: created.name, by: user.email }, 'channel created');
      return reply.code(201).send(publicChannel(created));
    });

    app.get('/channels/:channelId', { schema: { params, querystring, response: { 200: PublicChannelSchema } } }, async (request) => {
      const user = currentUser(request);
      const channel = await channels.findById(request.params.channelId);
      // Non-admins get 403 for unknown ids too, so ids of channels they cannot see are not confirmed.
      if (!isAdmin(user) && (channel === null || !canViewChannel(user, channel))) throw new AppError('FORBIDDEN', 'You are not allowed to view this channel');
      if (channel === null) throw new AppError('NOT_FOUND', `No channel with id ${request.params.channelId}`);
      return publicChannel(channel);
    });

    app.put('/channels/:channelId', { schema: { params, querystring, body: ChannelUpdateBody, response: { 200: PublicChannelSchema } } }, async (request) => {
      const user = currentUser(request);
      requireAdmin(user, 'change');
      const stored = await load(request.params.channelId);
      const { _id, ...changes } = request.body;
      if (_id !== undefined && _id !== stored._id) {
        refuseIfInvalid([{ path: 'body._id', message: `must be ${stored._id}, the id in the URL, or left out` }]);
      }
      const merged: Record<string, unknown> = { ...stored };
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      for (const key of SERVICE_FIELDS) delete merged[key];
      // The merge is re-checked whole, so a partial update cannot leave a channel that breaks the rules.
      const draft = channelDraft(merged as ChannelCreateBody);
      refuseIfInvalid([...(changes.routes === undefined ? [] : unmaskPasswords(draft.routes, stored.routes)), ...channelProblems(draft)]);
      const unset = Object.keys(stored).filter((k) => !(k in draft) && !(SERVICE_FIELDS as readonly string[]).includes(k));
      const update: Changes<ChannelRecord> = {
        set: { ...draft, updatedAt: new Date(), updatedBy: { id: user._id, name: user.email } },
        unset: unset as Changes<ChannelRecord>['unset'],
      };
      // A deleted channel stays deleted through an edit; only a status in the body brings it back.
      const restoring = stored.status === 'deleted' && draft.status !== 'deleted';
      const updated = await channels.updateById(stored._id, update).catch((err: unknown) => conflict(err, restoring));
      if (updated === null) throw new AppError('NOT_FOUND', `No channel with id ${stored._id}`);
      request.log.info({ channel: updated.name, by: user.email, fields: Object.keys(changes) }, restoring ? 'channel restored' : 'channel updated');
      return publicChannel(updated);
    });

    app.delete('/channels/:channelId', { schema: { params, querystring } }, async (request) => {
      const user = currentUser(request);
      requireAdmin(user, 'delete');
      const channel = await load(request.params.channelId);
      const keep = deps.hasTransactions !== undefined && (await deps.hasTransactions(channel._id));
      // Deleting a channel kept as deleted removes it for good once no transaction refers to it any more (retention).
      if (!keep) await channels.removeById(channel._id);
      else if (channel.status !== 'deleted') await channels.updateById(channel._id, { set: { status: 'deleted', updatedAt: new Date(), updatedBy: { id: user._id, name: user.email } } });
      request.log.info({ channel: channel.name, by: user.email, kept: keep }, 'channel deleted');
      return { message: `Channel ${channel.name} deleted` };
    });

    app.post('/channels/:channelId/trigger', { schema: { params, querystring } }, async (request) => {
      const user = currentUser(request);
      requireAdmin(user, 'trigger');
      const channel = await load(request.params.channelId);
      if (channel.type !== 'polling') throw new AppError('BAD_REQUEST', `Channel ${channel.name} is a ${channel.type} channel; only polling channels can be triggered`);
      if (channel.status === 'deleted') throw new AppError('CONFLICT', `Channel ${channel.name} is deleted; restore it with PUT {"status": "enabled"} to trigger it`);
      if (channel.status !== 'enabled') throw new AppError('CONFLICT', `Channel ${channel.name} is disabled; enable it to trigger it`);
      const triggered = deps.triggerPolling(channel._id);
      if (triggered === undefined) throw new AppError('STORE_UNAVAILABLE', 'Polling channels are not running yet; try again in a moment');
      const { transactionId, alreadyRunning } = triggered;
      request.log.info({ channel: channel.name, by: user.email, transactionId, alreadyRunning }, 'polling channel triggered');
      const message = alreadyRunning ? `Channel ${channel.name} is still polling from its previous trigger; no second poll was started` : `Channel ${channel.name} triggered`;
      return { message, transactionId, alreadyRunning };
    });
  };
}
