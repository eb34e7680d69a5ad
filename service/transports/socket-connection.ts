/**
 * One inbound connection of a tcp or tls channel: finds its messages (MLLP frames, or one stream message read until
 * the sender half-closes), hands them to the message path one at a time in arrival order, and writes each reply back
 * before the next message is handed on, so an HL7 A08 never overtakes its A01. Every path ends the socket: idle
 * timeout, silence from the start, a message that does not arrive whole in time, garbage, a reply of null, the sender
 * leaving, or the listener retiring it. An MLLP frame that holds no HL7 message is answered AR and not handed on.
 * The deadlines cost one timer per connection and one per message, never one per chunk.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { TcpFraming } from '../contracts/channels.js';
import { CARRIAGE_RETURN, MLLP_END, MLLP_START, MllpDecoder, frameMllp } from '../domain/codecs/mllp-framing.js';
import { ackBytes, negativeAck, readHeader, UNKNOWN_SENDER } from '../domain/codecs/hl7.js';
import type { RefusalReason } from '../domain/access/admission.js';
import type { MessageFraming, MessageHandler, MessageReply } from '../pipeline/inbound-message.js';
import type { ChannelRecord } from '../storage/records.js';
import type { PeerCertificate } from '../tls/peer-certificate.js';

export interface ConnectionSettings {
  /** The channel as its listener last saw it: read for each message, so a changed channel applies to the next one. */
  channel: () => ChannelRecord;
  handler: MessageHandler;
  framing: TcpFraming;
  secure: boolean;
  certificate?: PeerCertificate;
  maxMessageBytes: number;
  idleTimeoutMs: number;
  /** A connection that has sent nothing for this long is closed (0: only the idle timeout). */
  silentTimeoutMs?: number;
  /** One message must arrive whole within this long of its first byte (0: no deadline but the idle timeout). */
  frameTimeoutMs?: number;
  /** Told when a deadline closes the connection or a frame is refused (the listener logs and counts it, throttled). */
  deadline?: (reason: RefusalReason, fields: Record<string, unknown>) => void;
  /** Already bound to the channel's name and the peer's address. */
  logger: Logger;
}

type Item = { message: Buffer; receivedAt: Date } | { problem: string; head: Buffer };

/** Decoded messages waiting beyond this stop the reading until the queue is down to half. */
const PAUSE_AT = 16;
/** How much of a message is kept to read its MSH when the rest turns out to be garbage. */
const HEAD_BYTES = 16 * 1024;
/** After Junction ended its side, how long the sender gets to close its own before the socket is destroyed. */
const CLOSE_GRACE_MS = 2_000;
const LINE_FEED = 0x0a;

export class SocketConnection {
  readonly #socket: Socket;
  readonly #settings: ConnectionSettings;
  readonly #peer: { address: string; port: number };
  readonly #local: { address: string; port: number };
  /** Decided by the channel, or by the first byte when the channel says auto. */
  #framing: MessageFraming | undefined;
  #decoder: MllpDecoder | undefined;
  /** The first bytes since the last MLLP end byte: the message being read, for its MSH should it go wrong. */
  #head: Buffer[] = [];
  #headSize = 0;
  /** Stream framing: the message so far. */
  #parts: Buffer[] = [];
  #size = 0;
  #queue: Item[] = [];
  #pumping = false;
  /** A message is with the handler. */
  #handing = false;
  #peerEnded = false;
  #retiring = false;
  /** Junction has ended its side (or is about to): nothing more is read or answered. */
  #finished = false;
  /** Garbage was read: nothing after it is read. */
  #broken = false;
  readonly #handlers = new Set<Promise<MessageReply>>();
  /** Until the first byte. */
  #silent: NodeJS.Timeout | undefined;
  /** Until the message being read is whole. */
  #frame: NodeJS.Timeout | undefined;
  /** Resolves once the socket has closed. */
  readonly closed: Promise<void>;

  constructor(socket: Socket, settings: ConnectionSettings) {
    this.#socket = socket;
    this.#settings = settings;
    this.#peer = { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 };
    this.#local = { address: socket.localAddress ?? '', port: socket.localPort ?? 0 };
    if (settings.framing !== 'auto') this.#framing = settings.framing;
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.setNoDelay(true);
    socket.setTimeout(settings.idleTimeoutMs);
    if ((settings.silentTimeoutMs ?? 0) > 0) {
      this.#silent = setTimeout(() => this.#silenceExpired(), settings.silentTimeoutMs);
      this.#silent.unref();
    }
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('end', () => this.#ended());
    socket.on('timeout', () => this.#timedOut());
    socket.on('error', (err: NodeJS.ErrnoException) => {
      settings.logger.info({ err: err.message, code: err.code }, 'connection error');
    });
    socket.on('close', () => {
      clearTimeout(this.#silent);
      clearTimeout(this.#frame);
      if (this.#queue.length > 0) settings.logger.info({ dropped: this.#queue.length }, 'the sender closed the connection; messages read but not yet handed on are dropped');
      this.#queue = [];
    });
  }

  /** Messages still with the handler (their transactions complete even when the sender has gone). */
  handled(): Promise<unknown> {
    return Promise.allSettled([...this.#handlers]);
  }

  /** The listener is going away: answer what has been read (and the message being read), then end. */
  retire(): void {
    this.#retiring = true;
    if (this.#finished) return;
    if (this.#framing === 'stream' ? this.#size === 0 : this.#idle()) this.#finish();
    else if (this.#framing === 'mllp' && this.#decoder?.midMessage !== true) this.#socket.pause();
  }

  /** Ends the connection at once, whatever is in flight (its handler is still awaited by whoever holds it). */
  destroy(): void {
    this.#socket.destroy();
  }

  #idle(): boolean {
    return this.#queue.length === 0 && !this.#pumping && this.#decoder?.midMessage !== true;
  }

  #read(chunk: Buffer): void {
    if (this.#silent !== undefined) {
      clearTimeout(this.#silent);
      this.#silent = undefined;
    }
    if (this.#finished || this.#broken || chunk.length === 0) return;
    if (this.#framing === undefined) this.#framing = chunk[0] === MLLP_START ? 'mllp' : 'stream';
    if (this.#framing === 'mllp') this.#readMllp(chunk);
    else this.#readStream(chunk);
    this.#watchFrame();
    if (this.#queue.length > PAUSE_AT) this.#socket.pause();
    this.#pump();
  }

  /** Arms the message deadline when a message has begun, and lets it go once no message is part-read. */
  #watchFrame(): void {
    const ms = this.#settings.frameTimeoutMs ?? 0;
    if (ms <= 0) return;
    const open = !this.#broken && !this.#finished && (this.#framing === 'mllp' ? this.#decoder?.midMessage === true : this.#size > 0 && !this.#peerEnded);
    if (open && this.#frame === undefined) {
      this.#frame = setTimeout(() => this.#frameExpired(), ms);
      this.#frame.unref();
    } else if (!open && this.#frame !== undefined) {
      clearTimeout(this.#frame);
      this.#frame = undefined;
    }
  }

  /** A sender that trickles a message (or stalls in it) keeps a connection forever otherwise: refuse it as garbage. */
  #frameExpired(): void {
    this.#frame = undefined;
    if (this.#finished || this.#broken) return;
    const frameTimeoutMs = this.#settings.frameTimeoutMs;
    this.#settings.deadline?.('frame_timeout', { frameTimeoutMs });
    const head = this.#framing === 'mllp' ? Buffer.concat(this.#head) : Buffer.concat(this.#parts).subarray(0, HEAD_BYTES);
    this.#parts = [];
    this.#queue.push({ problem: `the message did not arrive whole within ${String(frameTimeoutMs)} ms of its first byte`, head });
    this.#broken = true;
    this.#socket.pause();
    this.#pump();
  }

  #silenceExpired(): void {
    this.#silent = undefined;
    if (this.#finished) return;
    this.#settings.deadline?.('silent', { silentTimeoutMs: this.#settings.silentTimeoutMs });
    this.#settings.logger.info({ silentTimeoutMs: this.#settings.silentTimeoutMs }, 'closing a connection that sent nothing');
    this.#finish();
  }

  #readMllp(chunk: Buffer): void {
    this.#decoder ??= new MllpDecoder({ maxMessageBytes: this.#settings.maxMessageBytes });
    // Fed in pieces that end at an end byte, so a problem always lies in the message whose first bytes #head holds.
    let at = 0;
    while (at < chunk.length) {
      const end = chunk.indexOf(MLLP_END, at);
      const stop = end === -1 ? chunk.length : end + 1;
      const piece = chunk.subarray(at, stop);
      const { messages, problem, problemKind } = this.#decoder.push(piece);
      const receivedAt = new Date();
      for (const message of messages) this.#queue.push({ message, receivedAt });
      if (problem !== undefined) {
        this.#settings.deadline?.(problemKind ?? 'bad_frame', { problem });
        this.#keepHead(piece);
        this.#queue.push({ problem, head: Buffer.concat(this.#head) });
        this.#broken = true;
        this.#socket.pause();
        return;
      }
      if (end === -1) {
        this.#keepHead(piece);
        break;
      }
      this.#head = [];
      this.#headSize = 0;
      at = stop;
    }
    // Retiring: the message being read was the last one this connection takes.
    if (this.#retiring && !this.#decoder.midMessage) this.#socket.pause();
  }

  #keepHead(piece: Buffer): void {
    if (this.#headSize >= HEAD_BYTES) return;
    const part = piece.subarray(0, HEAD_BYTES - this.#headSize);
    this.#head.push(part);
    this.#headSize += part.length;
  }

  #readStream(chunk: Buffer): void {
    if (this.#size + chunk.length > this.#settings.maxMessageBytes) {
      const head = Buffer.concat([...this.#parts, chunk]).subarray(0, HEAD_BYTES);
      this.#parts = [];
      const problem = `a message is longer than the ${this.#settings.maxMessageBytes} bytes allowed`;
      this.#settings.deadline?.('too_large', { problem });
      this.#queue.push({ problem, head });
      this.#broken = true;
      this.#socket.pause();
      return;
    }
    this.#parts.push(chunk);
    this.#size += chunk.length;
  }

  /** The sender half-closed: for a stream connection that is the end of its message. */
  #ended(): void {
    this.#peerEnded = true;
    this.#watchFrame();
    if (this.#finished || this.#broken) return;
    if (this.#framing === 'stream' && this.#size > 0 && this.#queue.length === 0) {
      this.#queue.push({ message: Buffer.concat(this.#parts, this.#size), receivedAt: new Date() });
      this.#parts = [];
    } else if (this.#decoder?.midMessage === true) {
      this.#settings.logger.info({ heldBytes: this.#decoder.heldBytes }, 'the sender ended the connection in the middle of an MLLP message; the part read is dropped');
    }
    this.#pump();
  }

  #timedOut(): void {
    if (this.#finished) {
      this.#socket.destroy();
      return;
    }
    if (this.#handing) return;
    this.#settings.logger.info({ idleTimeoutMs: this.#settings.idleTimeoutMs }, 'closing an idle connection');
    this.#finish();
  }

  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    void this.#drain()
      .catch((err: unknown) => {
        this.#settings.logger.error({ err }, 'connection failed');
        this.#socket.destroy();
      })
      .finally(() => {
        this.#pumping = false;
      });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0 && !this.#finished) {
      const item = this.#queue.shift() as Item;
      if (this.#socket.isPaused() && this.#queue.length <= PAUSE_AT / 2 && !this.#retiring && !this.#broken) this.#socket.resume();
      if ('problem' in item) {
        this.#refuse(item.problem, item.head);
        return;
      }
      if (this.#framing === 'mllp' && readHeader(item.message) === null) {
        if (!this.#socket.write(frameMllp(this.#notHl7(item.message)))) await this.#drained();
        continue;
      }
      const { reply } = await this.#hand(item.message, item.receivedAt);
      if (this.#socket.destroyed || !this.#socket.writable) {
        this.#settings.logger.info('the sender closed the connection before its reply; the reply is dropped');
        this.#queue = [];
        return;
      }
      if (reply === null) {
        this.#finish();
        return;
      }
      if (this.#framing === 'stream') {
        this.#finish(reply);
        return;
      }
      if (!this.#socket.write(frameMllp(reply))) await this.#drained();
    }
    if (this.#finished || this.#queue.length > 0) return;
    if (this.#peerEnded || (this.#retiring && this.#decoder?.midMessage !== true)) this.#finish();
  }

  #drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#socket.off('drain', done);
        this.#socket.off('close', done);
        resolve();
      };
      this.#socket.on('drain', done);
      this.#socket.on('close', done);
    });
  }

  async #hand(message: Buffer, receivedAt: Date): Promise<MessageReply> {
    // The idle timeout is for a silent sender, not for a slow route: the handler keeps its own timeout.
    this.#handing = true;
    this.#socket.setTimeout(0);
    const { logger, handler, secure, certificate } = this.#settings;
    const handling = handler
      .handle({
        channel: this.#settings.channel(),
        message,
        framing: this.#framing ?? 'mllp',
        peer: { ...this.#peer, ...(certificate !== undefined ? { certificate } : {}) },
        local: this.#local,
        secure,
        receivedAt,
      })
      .catch((err: unknown): MessageReply => {
        logger.error({ err }, 'the message path failed a message');
        return { reply: null };
      });
    this.#handlers.add(handling);
    try {
      return await handling;
    } finally {
      this.#handlers.delete(handling);
      this.#handing = false;
      if (!this.#finished && !this.#socket.destroyed) this.#socket.setTimeout(this.#settings.idleTimeoutMs);
    }
  }

  /**
   * MLLP carries HL7 v2: a frame without an MSH segment is a sender's mistake (or a probe), so it is answered AR and
   * not handed on, and the connection stays open for the next frame (the stream is still in step).
   */
  #notHl7(message: Buffer): Buffer {
    const reason = 'the MLLP frame does not hold an HL7 v2 message (it does not start with an MSH segment)';
    // Logged by the listener once per address and window: a sender looping on bad frames must not flood the log.
    this.#settings.deadline?.('not_hl7', { bytes: message.length, start: printable(message.subarray(0, 40)) });
    return ackBytes(negativeAck(UNKNOWN_SENDER, { code: 'AR', reason, controlId: randomBytes(8).toString('hex'), at: new Date() }));
  }

  /** Garbage: a negative ACK when the bytes still name their MSH (framed as the connection frames), then the end. */
  #refuse(problem: string, head: Buffer): void {
    const header = readHeader(withoutFraming(head));
    this.#settings.logger.info({ problem, answered: header !== null }, 'closing a connection that sent something unreadable');
    if (header === null) {
      this.#finish();
      return;
    }
    const ack = Buffer.from(negativeAck(header, { code: 'AR', reason: problem, controlId: randomBytes(8).toString('hex'), at: new Date() }), 'utf8');
    this.#finish(this.#framing === 'mllp' ? frameMllp(ack) : ack);
  }

  /** Ends Junction's side (with a last write) and reads whatever still comes only to discard it, so the last write is not lost to a reset. */
  #finish(last?: Buffer): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#queue = [];
    clearTimeout(this.#frame);
    this.#frame = undefined;
    if (this.#socket.destroyed) return;
    // A reader that stalls on the last write is caught by the idle timeout (#timedOut destroys a finished socket).
    this.#socket.setTimeout(this.#settings.idleTimeoutMs);
    const flushed = () => {
      const timer = setTimeout(() => this.#socket.destroy(), CLOSE_GRACE_MS);
      timer.unref();
      this.#socket.once('close', () => clearTimeout(timer));
    };
    if (last === undefined) this.#socket.end(flushed);
    else this.#socket.end(last, flushed);
    this.#socket.resume();
  }
}

/** The bytes of a message whose framing start is still in front: line breaks between frames and the start byte dropped. */
function withoutFraming(head: Buffer): Buffer {
  let at = 0;
  while (at < head.length && (head[at] === CARRIAGE_RETURN || head[at] === LINE_FEED)) at++;
  if (head[at] === MLLP_START) at++;
  return head.subarray(at);
}

/** The first bytes of something unreadable, safe for a log line: control bytes as dots. */
function printable(bytes: Buffer): string {
  return Buffer.from(bytes.map((b) => (b < 0x20 || b === 0x7f ? 0x2e : b))).toString('latin1');
}
