/** Shared pieces of the channel listener tests: channels, a recording message handler, raw peers and an HL7 sender. */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { Client, Message } from 'node-hl7-client';
import type { ConnectionOptions } from 'node:tls';
import { MllpDecoder } from '../../service/domain/codecs/mllp-framing.js';
import { readHeader } from '../../service/domain/codecs/hl7.js';
import type { InboundMessage, MessageHandler, MessageReply } from '../../service/pipeline/inbound-message.js';
import type { ChannelRecord } from '../../service/storage/records.js';

let ids = 0;

/** A stored tcp channel on 127.0.0.1 (the fields a listener reads, plus what makes it a record). */
export function channel(fields: Partial<ChannelRecord> & { tcpPort: number }): ChannelRecord {
  ids++;
  return {
    _id: `0000000000000000000000${String(ids).padStart(2, '0')}`,
    name: `hl7-${ids}`,
    type: 'tcp',
    tcpHost: '127.0.0.1',
    status: 'enabled',
    routes: [],
    ...fields,
  } as unknown as ChannelRecord;
}

/** A port nothing listens on right now. */
export { freePort } from '../helpers/process.js';

/** An HL7 v2 ADT message with the given control id (and an optional large OBX to make it big). */
export function adt(controlId: string, filler = ''): string {
  const segments = [`MSH|^~\\&|LAB|CLINIC|JUNCTION|HOSP|20240101120000||ADT^A01|${controlId}|P|2.5`, 'PID|1||12345^^^HOSP^MR||DOE^JOHN'];
  if (filler !== '') segments.push(`OBX|1|TX|NOTE||${filler}`);
  return `${segments.join('\r')}\r`;
}

/** A positive ACK for a message, built from its MSH. */
export function ackFor(message: Buffer): Buffer {
  const header = readHeader(message);
  return Buffer.from(`MSH|^~\\&|JUNCTION|HOSP|LAB|CLINIC|20240101120001||ACK^A01|ACK-${header?.controlId ?? ''}|P|2.5\rMSA|AA|${header?.controlId ?? ''}\r`);
}

/** The MSA-2 (the acknowledged control id) and MSA-1 of an ACK. */
export function msaOf(ack: Buffer | string): { code: string; controlId: string } {
  const text = ack.toString();
  const msa = text.split('\r').find((s) => s.startsWith('MSA|'))?.split('|') ?? [];
  return { code: msa[1] ?? '', controlId: msa[2] ?? '' };
}

/** A message handler that records what it was handed and answers an AA built from the inbound MSH, after `delay` ms. */
export class RecordingHandler implements MessageHandler {
  readonly got: InboundMessage[] = [];
  /** How many messages were with the handler at the same time, at most. */
  maxConcurrent = 0;
  #now = 0;
  delay: (message: InboundMessage, index: number) => number = () => 0;
  reply: (message: InboundMessage) => Buffer | null = (m) => ackFor(m.message);
  /** Control ids in the order their handling finished. */
  readonly finished: string[] = [];

  async handle(message: InboundMessage): Promise<MessageReply> {
    const index = this.got.length;
    this.got.push(message);
    this.#now++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.#now);
    const ms = this.delay(message, index);
    // A slow route, not a wait for a condition.
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    this.#now--;
    this.finished.push(readHeader(message.message)?.controlId ?? '');
    return { reply: this.reply(message) };
  }
}

/** What a raw peer got back: every byte until the server closed, and whether it closed. */
export interface Exchange {
  data: Buffer;
  replies: Buffer[];
  closedBy: 'server' | 'client' | 'timeout' | 'error';
  error?: string;
}

/**
 * Connects, runs `talk` on the socket, and collects what comes back until the server closes, `replies` MLLP replies
 * have come (then it closes itself), or `timeoutMs`.
 */
export function rawPeer(port: number, talk: (socket: Socket) => void | Promise<void>, replies = Infinity, timeoutMs = 10_000): Promise<Exchange> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    let done = false;
    const finish = (closedBy: Exchange['closedBy'], error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const data = Buffer.concat(parts);
      const decoder = new MllpDecoder({ maxMessageBytes: 64 * 1024 * 1024 });
      resolve({ data, replies: decoder.push(data).messages, closedBy, ...(error !== undefined ? { error } : {}) });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const counter = new MllpDecoder({ maxMessageBytes: 64 * 1024 * 1024 });
    let counted = 0;
    socket.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      counted += counter.push(chunk).messages.length;
      if (counted >= replies) finish('client');
    });
    socket.on('end', () => finish('server'));
    socket.on('close', () => finish('server'));
    socket.on('error', (err: NodeJS.ErrnoException) => finish('error', err.code ?? err.message));
    socket.on('connect', () => {
      void Promise.resolve(talk(socket)).catch((err: unknown) => finish('error', String(err)));
    });
  });
}

/** Writes a buffer one byte per write, each flushed before the next. */
export async function byteByByte(socket: Socket, data: Buffer): Promise<void> {
  for (const byte of data) await new Promise<void>((resolve) => socket.write(Buffer.from([byte]), () => resolve()));
}

/** Sends messages one after another with node-hl7-client (which frames MLLP itself), each after the previous ACK. */
export async function hl7Send(port: number, messages: string[], tls?: ConnectionOptions): Promise<string[]> {
  const client = new Client({ host: '127.0.0.1', connectionTimeout: 5_000, maxConnectionAttempts: 1, ...(tls !== undefined ? { tls } : {}) });
  let answer: ((text: string) => void) | undefined;
  const connection = client.createConnection({ port, waitAck: true }, (res) => {
    answer?.(res.getMessage().toString());
  });
  const acks: string[] = [];
  try {
    for (const text of messages) {
      const acked = new Promise<string>((resolve, reject) => {
        answer = resolve;
        connection.once('client.error', reject);
        setTimeout(() => reject(new Error('no ACK within 10 s')), 10_000).unref();
      });
      await connection.sendMessage(new Message({ text }));
      acks.push(await acked);
    }
  } finally {
    await connection.close();
    client.closeAll();
  }
  return acks;
}
