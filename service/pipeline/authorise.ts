/** Step 3: may this caller use the channel? Public channels, whitelisted addresses, or the client or a role in `allow`. */
import { AppError } from '../errors.js';
import { authorise } from '../domain/channel-match.js';
import type { ChannelRecord } from '../storage/records.js';
import type { TransactionContext } from './context.js';

/** Throws a 401 when the caller is not allowed on the channel. */
export function authoriseRequest(ctx: TransactionContext, channel: ChannelRecord): void {
  const client = ctx.client === null ? null : { clientID: ctx.client.clientID, roles: ctx.client.roles };
  if (!authorise(channel, client, ctx.clientIp)) {
    throw new AppError('CLIENT_NOT_AUTHORISED', `The client is not allowed to use channel ${channel.name}`);
  }
}
