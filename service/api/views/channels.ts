/** The public view of a channel, as every answer shows it (the channel routes, and the channels a mediator installs). */
import type { Static } from 'typebox';
import { PASSWORD_MASK } from '../../domain/password-mask.js';
import type { ChannelRecord } from '../../storage/records.js';
import type { PublicChannelSchema } from '../schemas/channels.js';

type PublicChannel = Static<typeof PublicChannelSchema>;

/** The answer view: dates as text, route passwords masked. */
export function publicChannel(channel: ChannelRecord): PublicChannel {
  return {
    ...channel,
    routes: channel.routes.map((r) => (r.password === undefined ? r : { ...r, password: PASSWORD_MASK })),
    createdAt: channel.createdAt.toISOString(),
    updatedAt: channel.updatedAt.toISOString(),
  };
}
