/** Where a refused HTTP request or message came in, as the refusal record names it (domain/operations/refusals.ts). */
import type { IncomingMessage } from 'node:http';
import type { RefusedAt } from '../domain/operations/refusals.js';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';
import type { InboundMessage } from './inbound-message.js';

/** A request on a transaction port: the port, the sender, and the channel and client once known. */
export function requestRefusedAt(req: IncomingMessage, secure: boolean, known: { channel?: ChannelRecord | undefined; client?: ClientRecord | null | undefined } = {}): RefusedAt {
  return {
    listener: secure ? 'https' : 'http',
    port: req.socket.localPort,
    address: req.socket.remoteAddress ?? '',
    ...(known.channel === undefined ? {} : { channelId: known.channel._id, channelName: known.channel.name }),
    ...(known.client === undefined || known.client === null ? {} : { client: known.client.clientID }),
  };
}

/** A message on a tcp or tls channel's listener. */
export function messageRefusedAt(inbound: InboundMessage): RefusedAt {
  const { channel } = inbound;
  return { listener: `channel:${channel.name}`, port: inbound.local.port, address: inbound.peer.address, channelId: channel._id, channelName: channel.name };
}
