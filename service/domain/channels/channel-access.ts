/**
 * Whether a channel's access rules can admit anyone at all (issue 35): a clinic saved a private MLLP channel with
 * nobody allowed and every lab message was refused with no warning. The pipeline's own check is `authorise`
 * (channel-match.ts); this reads the same fields ahead of any traffic, with the clients that exist now. Pure.
 */
import type { Channel } from '../../contracts/channels.js';
import { channelKind } from './channel-kinds.js';

export type AccessCheckedChannel = Pick<Channel, 'type' | 'authType' | 'allow' | 'whitelist'>;

/** A client as the check needs it: its id and roles. */
export interface KnownClient {
  clientID: string;
  roles: readonly string[];
}

/**
 * Why nobody can use the channel, or null when someone can (or the channel takes no callers: polling channels are
 * ticked by Junction itself). A whitelisted address always can; otherwise an authenticated client must be named by
 * id or role in `allow`, or `allow` must hold `*` and some client exist.
 */
export function nobodyAdmitted(channel: AccessCheckedChannel, clients: readonly KnownClient[]): string | null {
  if (channel.authType !== 'private') return null;
  const kind = channelKind(channel.type);
  if (kind === undefined || kind.entry === 'poll') return null;
  if (channel.whitelist.some((address) => address.trim() !== '')) return null;
  // A plain tcp listener has no way to know a client: only addresses can be let in.
  if (kind.entry === 'message' && !kind.clientCertificates) {
    return 'it is private and a tcp channel cannot identify clients, so only whitelisted addresses may send, and its whitelist is empty';
  }
  if (channel.allow.length === 0) return 'it is private and allows no client, role or address';
  if (channel.allow.includes('*')) return clients.length > 0 ? null : 'it is private and allows every client (*), but no client exists';
  const named = new Set(channel.allow);
  if (clients.some((c) => named.has(c.clientID) || c.roles.some((r) => named.has(r)))) return null;
  return `it is private and allows only ${channel.allow.map((a) => `"${a}"`).join(', ')}, which name${channel.allow.length === 1 ? 's' : ''} no existing client or role, and its whitelist is empty`;
}
