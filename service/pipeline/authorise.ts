/** Step 3 (admit.ts): may this caller use the channel? Public channels, whitelisted addresses, or the client or a role in `allow`. */
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
