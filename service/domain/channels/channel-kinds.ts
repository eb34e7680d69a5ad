/**
 * What each kind of channel is, as one table keyed by the channel type: every place that treats http, tcp, tls and
 * polling channels differently reads its row here instead of comparing the type, so a new kind is one new row (and
 * the compiler names every place that needs one).
 */
import { CHANNEL_TYPES } from '../../contracts/channels.js';
import type { ChannelType } from '../../contracts/channels.js';

export interface ChannelKind {
  /**
   * How its transactions arrive: HTTP requests on the transaction ports, matched by URL pattern (`request`); whole
   * messages read by the channel's own listener (`message`); or Junction's own polling ticks (`poll`).
   */
  entry: 'request' | 'message' | 'poll';
  /** The channel's own listener (tcp or tls, on `tcpPort`), or null when it has none. */
  listener: 'tcp' | 'tls' | null;
  /** Needs a `urlPattern`: requests are matched by it, or polling ticks are sent to it. */
  urlPattern: boolean;
  /** Its listener's TLS handshake can ask for a client certificate (`requireClientCertificate`). */
  clientCertificates: boolean;
}

export const CHANNEL_KINDS = {
  http: { entry: 'request', listener: null, urlPattern: true, clientCertificates: false },
  tcp: { entry: 'message', listener: 'tcp', urlPattern: false, clientCertificates: false },
  tls: { entry: 'message', listener: 'tls', urlPattern: false, clientCertificates: true },
  polling: { entry: 'poll', listener: null, urlPattern: true, clientCertificates: false },
} as const satisfies Record<ChannelType, ChannelKind>;

/** The channel types that have a listener of their own, for store queries. */
export const LISTENING_CHANNEL_TYPES: readonly ChannelType[] = CHANNEL_TYPES.filter((type) => CHANNEL_KINDS[type].listener !== null);

/**
 * The kind of a channel of this type; undefined for a type Junction does not know (a stored document written by
 * something else), which every caller treats as a channel that takes no transactions.
 */
export function channelKind(type: string | undefined): ChannelKind | undefined {
  return type !== undefined && Object.hasOwn(CHANNEL_KINDS, type) ? CHANNEL_KINDS[type as ChannelType] : undefined;
}

/** The channel's own listener protocol, or null when it has none. */
export function listenerOf(channel: { type?: string | undefined }): 'tcp' | 'tls' | null {
  return channelKind(channel.type)?.listener ?? null;
}
