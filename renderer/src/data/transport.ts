/**
 * How a transaction arrived and where its routes went, for the list and the detail page: an HTTP transaction is its
 * method and path, a socket one (tcp or tls channel) the channel's transport instead, since its stored method and
 * path (POST /) are only placeholders; likewise an mllp or tcp route is its type and host:port, not POST /.
 */
import type { ChannelType, RouteType, TcpFraming } from '../../../service/contracts/channels';
import type { RequestLine } from '../../../service/contracts/transactions';
import { readHl7 } from './hl7';
import { channelKind, routeKind } from './kinds';

/** The parts of a channel these labels read (the transactions store's channel names have them). */
export interface TransportChannel {
  type?: ChannelType;
  tcpFraming?: TcpFraming;
}

/** The transport layer of a channel that listens on its own port (tcp, tls); undefined for the other kinds. */
const layerOf = (channel: TransportChannel | undefined): 'TCP' | 'TLS' | undefined => (channel?.type === undefined ? undefined : channelKind(channel.type).layer);

/** `MLLP over TCP`, `TLS stream`, ...: the transport of a tcp or tls channel; null for the other channel types. */
export function socketTransport(channel: TransportChannel | undefined): string | null {
  const layer = layerOf(channel);
  if (layer === undefined) return null;
  switch (channel?.tcpFraming ?? 'auto') {
    case 'mllp':
      return `MLLP over ${layer}`;
    case 'stream':
      return `${layer} stream`;
    case 'auto':
      return `${layer} (MLLP or stream)`;
  }
}

/** The short form for the list's narrow method column: `MLLP`, `MLLP/TLS`, `TCP` or `TLS`; null for other channels. */
export function socketTransportShort(channel: TransportChannel | undefined): string | null {
  const layer = layerOf(channel);
  if (layer === undefined) return null;
  if (channel?.tcpFraming === 'mllp') return layer === 'TLS' ? 'MLLP/TLS' : 'MLLP';
  return layer;
}

/** `host:port`, an IPv6 address in brackets; the port alone when the host was not stored, '' when neither was. */
export function hostPort(request: Pick<RequestLine, 'host' | 'port'>): string {
  const host = request.host === undefined ? '' : request.host.includes(':') ? `[${request.host}]` : request.host;
  if (request.port === undefined) return host;
  return host === '' ? `port ${request.port}` : `${host}:${request.port}`;
}

/** What one row of the transactions list shows in its method and path cells, and the full text of the path's link. */
export interface RowRequest {
  method: string;
  path: string;
  title: string;
  /** The row in words, for its selection box: `GET /lab/results`, `MLLP over TCP, port 2575`. */
  name: string;
}

/**
 * The method and path cells of a list row: `POST /lab/results` for HTTP, `MLLP` and `MLLP over TCP, port 2575` for
 * a socket channel (the port the message arrived on, which tells two listeners of one channel type apart).
 */
export function rowRequest(request: RequestLine, channel: TransportChannel | undefined): RowRequest {
  const transport = socketTransport(channel);
  const short = socketTransportShort(channel);
  if (transport === null || short === null) {
    const full = request.querystring === '' ? request.path : `${request.path}?${request.querystring}`;
    return { method: request.method, path: request.path, title: full, name: `${request.method} ${request.path}` };
  }
  const path = request.port === undefined ? transport : `${transport}, port ${request.port}`;
  return { method: short, path, title: path, name: path };
}

/** A route as far as the route labels need it (the transactions store's channel names carry these). */
export interface TransportRoute {
  name: string;
  type: RouteType;
  secured?: boolean;
}

/**
 * What an mllp or tcp route's exchange is called in the detail page: `MLLP to 10.0.0.5:2575`, `TCP over TLS to
 * lis.local:6661`. Null for an http route, or a route the channel no longer has (renamed or removed), whose stored
 * method and path are then shown as they are.
 */
export function socketRouteLabel(route: TransportRoute | undefined, request: Pick<RequestLine, 'host' | 'port'>): string | null {
  if (route === undefined || !routeKind(route.type).socket) return null;
  const kind = `${routeKind(route.type).label}${route.secured === true ? ' over TLS' : ''}`;
  const target = hostPort(request);
  return target === '' ? kind : `${kind} to ${target}`;
}

/** MSH-9 of an HL7 v2 body (`ORU^R01`), read from its first segment only, or undefined when it is not HL7. */
export function hl7MessageType(body: string | undefined): string | undefined {
  if (body === undefined || !/^\s*MSH/.test(body)) return undefined;
  const end = body.search(/[\r\n]/);
  return readHl7(end === -1 ? body : body.slice(0, end)).messageType;
}
