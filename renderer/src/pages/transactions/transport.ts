/**
 * How a transaction arrived, for the detail page: an HTTP transaction is its method and path, a socket one (tcp or
 * tls channel) the channel's transport instead, since its stored method and path (POST /) are only placeholders.
 */
import type { ChannelType, TcpFraming } from '../../../../service/contracts/channels';
import { readHl7 } from '../../components/hl7';

/** `MLLP over TCP`, `TLS stream`, ...: the transport of a tcp or tls channel; null for the other channel types. */
export function socketTransport(channel: { type?: ChannelType; tcpFraming?: TcpFraming } | undefined): string | null {
  if (channel?.type !== 'tcp' && channel?.type !== 'tls') return null;
  const layer = channel.type === 'tls' ? 'TLS' : 'TCP';
  switch (channel.tcpFraming ?? 'auto') {
    case 'mllp':
      return `MLLP over ${layer}`;
    case 'stream':
      return `${layer} stream`;
    case 'auto':
      return `${layer} (MLLP or stream)`;
  }
}

/** MSH-9 of an HL7 v2 body (`ORU^R01`), read from its first segment only, or undefined when it is not HL7. */
export function hl7MessageType(body: string | undefined): string | undefined {
  if (body === undefined || !/^\s*MSH/.test(body)) return undefined;
  const end = body.search(/[\r\n]/);
  return readHl7(end === -1 ? body : body.slice(0, end)).messageType;
}
