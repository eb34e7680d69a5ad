/**
 * What a tcp or tls channel's listener (transports/sockets.ts) hands the message path (pipeline/message.ts), and what
 * it gets back. Framing stays in the transport: the pipeline sees the message bytes only, and answers with reply
 * bytes the transport frames (MLLP) or writes and ends (stream).
 */
import type { ChannelRecord } from '../storage/records.js';
import type { PresentedCredentials } from './authenticate.js';

export type MessageFraming = 'mllp' | 'stream';

/** One whole message read from a tcp or tls channel connection. */
export interface InboundMessage {
  /** The channel whose listener read it, as that listener last saw it. */
  channel: ChannelRecord;
  /** The message, framing removed; never longer than `tcp.maxMessageBytes`. */
  message: Buffer;
  framing: MessageFraming;
  /** The sender: its address and port, and its TLS client certificate when it presented one. */
  peer: { address: string; port: number; certificate?: PresentedCredentials['peer'] };
  /** The listener's own address and port. */
  local: { address: string; port: number };
  /** Arrived over TLS (a tls channel). */
  secure: boolean;
  /** When its last byte arrived. */
  receivedAt: Date;
}

/** What to send back for one message. */
export interface MessageReply {
  /**
   * The reply, framing not added: the primary route's answer, or an HL7 ACK with MSA-1 AE or AR that Junction built.
   * Null only when there is nothing the sender could read as an answer (a message that is not HL7 on a stream
   * connection that failed): the transport then closes the connection.
   */
  reply: Buffer | null;
  /** The transaction stored for the message; absent when it was refused before anything was stored. */
  transactionId?: string;
}

/** The message path: resolves with the reply for each message, never rejects, and never waits past the channel timeout plus a grace. */
export interface MessageHandler {
  handle(message: InboundMessage): Promise<MessageReply>;
}
