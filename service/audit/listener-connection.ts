/**
 * One TCP or TLS connection of an audit listener: unframes its syslog messages (domain/codecs/syslog-framing.ts) and hands
 * each to the intake as soon as it is whole. Every path ends the socket: a framing problem (logged, counted, closed,
 * as the stream cannot be resynchronised), the idle timeout (which also ends a sender that never finishes a frame),
 * the sender leaving, or the listener stopping. While the intake says it is overloaded, reading pauses, so a fast
 * sender is slowed by TCP instead of growing memory here.
 */
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { SyslogFrameDecoder } from '../domain/codecs/syslog-framing.js';
import type { SyslogFramingProblem } from '../domain/codecs/syslog-framing.js';
import type { AuditMessageHandler, AuditPeer } from './peer.js';

/** Optional flow control an intake may offer; while `overloaded()` the stream listeners stop reading. */
export interface AuditFlowControl {
  overloaded(): boolean;
  /** Resolves once the intake can take more. */
  whenReady(): Promise<void>;
}

/** An intake, with flow control when it offers it. */
export type AuditIntakeHandler = AuditMessageHandler & Partial<AuditFlowControl>;

/** What a listener counts; a connection adds to its listener's counters. */
export interface AuditListenerCounters {
  /** Whole messages handed to the intake. */
  received: number;
  /** Streams closed for a framing problem, datagrams dropped as empty. */
  malformedFraming: number;
  /** Connections refused: over `auditing.maxConnections`, a TLS handshake that failed, a client certificate refused. */
  refusedConnections: number;
  /** Messages over `auditing.maxMessageBytes` (a stream is closed, a datagram dropped). */
  tooLarge: number;
}

export interface AuditConnectionSettings {
  peer: AuditPeer;
  handler: AuditIntakeHandler;
  counters: AuditListenerCounters;
  maxMessageBytes: number;
  idleTimeoutMs: number;
  /** A connection that sends nothing for this long is closed (0 or absent: only the idle timeout). */
  silentTimeoutMs?: number;
  /** One message must arrive whole within this long of its first byte (0 or absent: only the idle timeout). */
  frameTimeoutMs?: number;
  /** Told when one of those deadlines closes the connection (the listener logs and counts it, throttled). */
  deadline?: (reason: 'silent' | 'frame_timeout', fields: Record<string, unknown>) => void;
  /** Already bound to the listener and the peer's address. */
  logger: Logger;
}

/** Reads the syslog messages of one stream connection and hands them on. */
export class AuditStreamConnection {
  readonly #socket: Socket;
  readonly #settings: AuditConnectionSettings;
  readonly #decoder: SyslogFrameDecoder;
  /** Reading is paused until the intake recovers. */
  #waiting = false;
  #closing = false;
  /** Until the first byte. */
  #silent: NodeJS.Timeout | undefined;
  /** Until the message being read is whole: one timer per message, none per chunk. */
  #frame: NodeJS.Timeout | undefined;
  /** Resolves once the socket has closed. */
  readonly closed: Promise<void>;

  constructor(socket: Socket, settings: AuditConnectionSettings) {
    this.#socket = socket;
    this.#settings = settings;
    this.#decoder = new SyslogFrameDecoder({ maxMessageBytes: settings.maxMessageBytes });
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.setTimeout(settings.idleTimeoutMs);
    if ((settings.silentTimeoutMs ?? 0) > 0) {
      this.#silent = setTimeout(() => this.#expired('silent'), settings.silentTimeoutMs);
      this.#silent.unref();
    }
    socket.once('close', () => {
      clearTimeout(this.#silent);
      clearTimeout(this.#frame);
    });
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('end', () => this.#ended());
    socket.on('timeout', () => this.#timedOut());
    socket.on('error', (err: NodeJS.ErrnoException) => {
      settings.logger.info({ err: err.message, code: err.code }, 'audit connection error');
    });
  }

  /** Bytes held of a message not yet whole. */
  get heldBytes(): number {
    return this.#decoder.heldBytes;
  }

  /** The listener is stopping: every whole message read has been handed on already, so end now; a part-read one is lost. */
  close(): void {
    if (this.#closing || this.#socket.destroyed) return;
    this.#closing = true;
    if (this.#decoder.midMessage) this.#settings.logger.info({ heldBytes: this.#decoder.heldBytes }, 'the audit listener stopped in the middle of a message; the part read is dropped');
    this.#socket.destroy();
  }

  #read(chunk: Buffer): void {
    if (this.#silent !== undefined) {
      clearTimeout(this.#silent);
      this.#silent = undefined;
    }
    if (this.#closing) return;
    const { messages, problem } = this.#decoder.push(chunk);
    this.#hand(messages);
    if (problem !== undefined) {
      this.#refuse(problem);
      return;
    }
    this.#watchFrame();
    const { handler } = this.#settings;
    if (handler.overloaded?.() === true && handler.whenReady !== undefined) this.#pauseUntil(handler.whenReady());
  }

  #watchFrame(): void {
    const ms = this.#settings.frameTimeoutMs ?? 0;
    if (ms <= 0) return;
    if (this.#decoder.midMessage && this.#frame === undefined) {
      this.#frame = setTimeout(() => this.#expired('frame_timeout'), ms);
      this.#frame.unref();
    } else if (!this.#decoder.midMessage && this.#frame !== undefined) {
      clearTimeout(this.#frame);
      this.#frame = undefined;
    }
  }

  /** A sender silent from the start, or one trickling a message, would otherwise hold its connection until the idle timeout, forever when it trickles. */
  #expired(reason: 'silent' | 'frame_timeout'): void {
    if (this.#closing || this.#socket.destroyed) return;
    const { silentTimeoutMs, frameTimeoutMs } = this.#settings;
    if (reason === 'frame_timeout') this.#settings.counters.malformedFraming++;
    this.#settings.deadline?.(reason, reason === 'silent' ? { silentTimeoutMs } : { frameTimeoutMs, heldBytes: this.#decoder.heldBytes });
    this.#closing = true;
    this.#socket.destroy();
  }

  #hand(messages: Buffer[]): void {
    const { handler, peer, counters, logger } = this.#settings;
    for (const message of messages) {
      counters.received++;
      try {
        handler.receive(message, peer);
      } catch (err) {
        // The intake promises not to throw; if it does, one message is lost, not the listener.
        logger.error({ err }, 'the audit intake failed a message');
      }
    }
  }

  /** Stops reading until the intake is ready; the idle timeout is off meanwhile, as the silence is Junction's, not the sender's. */
  #pauseUntil(ready: Promise<void>): void {
    if (this.#waiting) return;
    this.#waiting = true;
    this.#socket.pause();
    this.#socket.setTimeout(0);
    const resume = () => {
      this.#waiting = false;
      if (this.#closing || this.#socket.destroyed) return;
      this.#socket.setTimeout(this.#settings.idleTimeoutMs);
      this.#socket.resume();
    };
    ready.then(resume, (err: unknown) => {
      this.#settings.logger.warn({ err }, 'the audit intake failed while reading was paused; reading again');
      resume();
    });
  }

  #refuse(problem: SyslogFramingProblem): void {
    const { counters, logger, maxMessageBytes } = this.#settings;
    if (problem.kind === 'too-large') counters.tooLarge++;
    else counters.malformedFraming++;
    logger.warn({ problem: problem.detail, kind: problem.kind, maxMessageBytes }, 'closing an audit connection that sent something it cannot be read past');
    this.#closing = true;
    this.#socket.destroy();
  }

  /** The sender closed its side: a newline-framed message ended by the close is whole; a frame cut short is counted. */
  #ended(): void {
    if (this.#closing) return;
    const { messages, problem } = this.#decoder.end();
    this.#hand(messages);
    if (problem !== undefined) {
      this.#settings.counters.malformedFraming++;
      this.#settings.logger.info({ problem: problem.detail }, 'an audit sender closed the connection in the middle of a message; the part read is dropped');
    }
    this.#closing = true;
    this.#socket.end();
  }

  #timedOut(): void {
    const { logger, idleTimeoutMs } = this.#settings;
    logger.info({ idleTimeoutMs, heldBytes: this.#decoder.heldBytes }, this.#decoder.midMessage ? 'closing an audit connection that stopped in the middle of a message' : 'closing an idle audit connection');
    this.#closing = true;
    this.#socket.destroy();
  }
}
