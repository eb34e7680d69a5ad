/**
 * Which ports a tcp or tls channel may listen on: not one another channel claims, and not one of the service's own
 * listeners (the API, the transaction ports, the audit repository). Two listeners clash on the same port unless each
 * names a different specific address. Pure: the catalogue gathers the claims.
 */
import type { ValidationProblem } from '../../contracts/api.js';
import { listenerOf } from './channel-kinds.js';
import type { ChannelDraft } from './channel-rules.js';

/** A port something already listens on, or will. */
export interface PortClaim {
  port: number;
  /** The address it binds; a wildcard (0.0.0.0, ::, '') covers every address. */
  host: string;
  /** Who holds it, as a message names it: `the management API`, `channel "Lab results"`. */
  owner: string;
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '::0']);

/** True when listeners on these two addresses and the same port would clash. */
export function addressesOverlap(a: string, b: string): boolean {
  return WILDCARDS.has(a) || WILDCARDS.has(b) || a.toLowerCase() === b.toLowerCase();
}

/** A tcp or tls channel's listener as a claim, or null for channels that do not listen. */
export function channelClaim(channel: Pick<ChannelDraft, 'name' | 'type' | 'tcpHost' | 'tcpPort' | 'status'>): PortClaim | null {
  if (listenerOf(channel) === null || channel.tcpPort === undefined || channel.status === 'deleted') return null;
  return { port: channel.tcpPort, host: channel.tcpHost ?? '0.0.0.0', owner: `channel "${channel.name}"` };
}

/** The problem with the channel's port given the other claims (its own excluded by the caller), or none. */
export function portClaimProblems(channel: Pick<ChannelDraft, 'name' | 'type' | 'tcpHost' | 'tcpPort' | 'status'>, claims: readonly PortClaim[], at = 'body'): ValidationProblem[] {
  const own = channelClaim(channel);
  if (own === null) return [];
  const taken = claims.find((claim) => claim.port === own.port && addressesOverlap(claim.host, own.host));
  return taken === undefined ? [] : [{ path: `${at}.tcpPort`, message: `port ${own.port} is already used by ${taken.owner}; choose another port` }];
}
