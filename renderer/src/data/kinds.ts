/**
 * The console's table of channel and route kinds: everything a page shows or hides by kind is read here, so a new
 * kind (added to `CHANNEL_TYPES` or `ROUTE_TYPES` in the contracts) fails to compile until it has its row.
 */
import type { ChannelType, RouteType } from '../../../service/contracts/channels';

export interface ChannelKind {
  label: string;
  /** Listens on its own port (a tcp or tls listener) instead of being matched by URL on the transaction ports. */
  listens: boolean;
  /** The transport layer of a listening kind, as labels name it. */
  layer?: 'TCP' | 'TLS';
  /** Its listener speaks TLS, so it may require a client certificate. */
  secure: boolean;
  /** Junction polls it on a schedule rather than waiting for requests. */
  polls: boolean;
}

export const CHANNEL_KINDS = {
  http: { label: 'HTTP', listens: false, secure: false, polls: false },
  tcp: { label: 'TCP', listens: true, layer: 'TCP', secure: false, polls: false },
  tls: { label: 'TLS', listens: true, layer: 'TLS', secure: true, polls: false },
  polling: { label: 'Polling', listens: false, secure: false, polls: true },
} satisfies Record<ChannelType, ChannelKind>;

export interface RouteKind {
  label: string;
  /** Sent over a socket: paths, Basic authentication and forwarded headers mean nothing to it. */
  socket: boolean;
  /** The scheme of its address as the mediator pages write it. */
  scheme(secured: boolean): string;
  /** What the TLS switch does, and how its reply is read, for a socket kind. */
  tlsHelp?: string;
  replyHelp?: string;
}

export const ROUTE_KINDS = {
  http: { label: 'HTTP', socket: false, scheme: (secured) => (secured ? 'https' : 'http') },
  tcp: {
    label: 'TCP',
    socket: true,
    scheme: () => 'tcp',
    tlsHelp: 'Send the bytes over TLS.',
    replyHelp: 'The message is written, the connection half-closed, and everything the upstream sends until it closes is the reply.',
  },
  mllp: {
    label: 'MLLP',
    socket: true,
    scheme: () => 'mllp',
    tlsHelp: 'Send the MLLP frames over TLS.',
    replyHelp: 'The message is sent in an MLLP frame and the route waits for one framed reply (the ACK).',
  },
} satisfies Record<RouteType, RouteKind>;

/** The kind of a channel type, typed for reading the optional fields. */
export const channelKind = (type: ChannelType): ChannelKind => CHANNEL_KINDS[type];

/** The kind of a route type, typed for reading the optional fields. */
export const routeKind = (type: RouteType): RouteKind => ROUTE_KINDS[type];
