/** Step 3: may this caller use the channel? Public channels, whitelisted addresses, or the client or a role in `allow`. */
import { AppError } from '../errors.js';
import { authorise } from '../domain/channels/channel-match.js';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';

/** Who is calling, whichever transport: an HTTP request's context is one as it is. */
export interface Caller {
  client: ClientRecord | null;
  clientIp: string;
}

/** True when the caller, or its address, may use the channel. */
export function mayUse(caller: Caller, channel: ChannelRecord): boolean {
  const client = caller.client === null ? null : { clientID: caller.client.clientID, roles: caller.client.roles };
  return authorise(channel, client, caller.clientIp);
}

/** Throws a 401 when the caller is not allowed on the channel. */
export function authoriseRequest(ctx: Caller, channel: ChannelRecord): void {
  if (!mayUse(ctx, channel)) {
    throw new AppError('CLIENT_NOT_AUTHORISED', `The client is not allowed to use channel ${channel.name}`);
  }
}
