/** The public views of a channel, as every answer shows it (the channel routes, and the channels a mediator installs), and of its history. */
import type { Static } from 'typebox';
import type { ChannelListener } from '../../contracts/channels.js';
import { PASSWORD_MASK } from '../../domain/util/password-mask.js';
import type { ChannelAuditRecord, ChannelRecord, RouteRecord } from '../../storage/records.js';
import type { ChannelAuditSchema, PublicChannelSchema } from '../schemas/channels.js';

type PublicChannel = Static<typeof PublicChannelSchema>;

/** A stored route as answered: password masked, and OpenHIM's route fields that routes saved before them lack. */
function publicRoute(route: RouteRecord): RouteRecord {
  const withDefaults = { ...route, waitPrimaryResponse: route.waitPrimaryResponse ?? false };
  return route.password === undefined ? withDefaults : { ...withDefaults, password: PASSWORD_MASK };
}

/** The answer view: dates as text, route passwords masked, and a tcp or tls channel's listener state when it has one. */
export function publicChannel(channel: ChannelRecord, listener?: ChannelListener, admitsNobody?: string | null): PublicChannel {
  return {
    ...channel,
    routes: channel.routes.map(publicRoute),
    createdAt: channel.createdAt.toISOString(),
    updatedAt: channel.updatedAt.toISOString(),
    ...(listener === undefined ? {} : { listener }),
    ...(admitsNobody === undefined || admitsNobody === null ? {} : { admitsNobody }),
  };
}

/** A history record as answered (OpenHIM's patch-history shape): the date as text. */
export function publicChannelAudit(record: ChannelAuditRecord): Static<typeof ChannelAuditSchema> {
  return { ...record, date: record.date.toISOString() };
}
