/**
 * Route kinds as one table: every route type has a sender of one shape (`RouteSender`), and the pipeline picks it by
 * the route's `type`, never by comparing it. The table is typed `Record<RouteType, RouteSender>`, so a route type
 * added to contracts/channels.ts without a sender does not compile.
 *
 * The HTTP router is its own sender. The `mllp` and `tcp` exchanges (mllp.ts, tcp.ts: one message out, one reply
 * back) are adapted here: the request body is the message (read whole, up to `tcp.maxMessageBytes`), and the reply
 * comes back as the route's answer, its status an HL7 ACK's code (AA 200, AE 400, AR 500) and its bytes kept whole.
 */
import { Readable } from 'node:stream';
import type { RouteType } from '../contracts/channels.js';
import { readHeader, statusOfReply, wrongAcknowledgement } from '../domain/codecs/hl7.js';
import { readUpTo } from '../streams/relay.js';
import { HttpRouter } from './http.js';
import type { RouteAnswer, RouteCall } from './http.js';
import { MllpRouter } from './mllp.js';
import type { SocketSender } from './socket-connect.js';
import { TcpRouter } from './tcp.js';

/** One send to a route, whatever its kind. */
export interface RouteSend extends RouteCall {
  /** The route's name, for the failures a sender reports itself. */
  name: string;
  /** Called as the request body is read, so the transaction's stall watchdog sees progress. */
  touch?: () => void;
}

export interface RouteSender {
  /**
   * What the route is sent: an HTTP request (method, path, headers and body), or only the body as one message (the
   * path and headers a transaction records for such a route are the ones it would have had).
   */
  readonly carries: 'request' | 'message';
  /** Resolves when the route answered (the body may still stream); rejects when it could not be reached or did not answer. */
  send(call: RouteSend): Promise<RouteAnswer>;
}

/** The sender of every route kind. */
export type RouteSenders = Readonly<Record<RouteType, RouteSender>>;

/** A message exchange (MLLP or raw TCP) as a route sender. */
export class MessageRouteSender implements RouteSender {
  readonly carries = 'message';

  constructor(
    readonly kind: RouteType,
    readonly exchange: SocketSender,
    readonly maxMessageBytes: number,
  ) {}

  async send(call: RouteSend): Promise<RouteAnswer> {
    const message = await this.#message(call);
    const header = readHeader(message);
    const reply = await this.exchange.send({
      target: call.target,
      message,
      timeoutMs: call.timeoutMs,
      ...(call.signal === undefined ? {} : { signal: call.signal }),
      // An ACK of another message is never taken as this one's: the sender would believe it was accepted.
      check: (answer) => wrongAcknowledgement(header, answer),
    });
    const type = readHeader(reply) === null ? 'application/octet-stream' : 'application/hl7-v2';
    return { status: statusOfReply(reply), headers: { 'content-type': type, 'content-length': String(reply.length) }, body: Readable.from([reply]), bytes: reply };
  }

  /** The whole message; a body that breaks off or is longer than the limit fails the route (and is drained for the others). */
  async #message(call: RouteSend): Promise<Buffer> {
    const { body } = call;
    if (body === undefined || body === null) return Buffer.alloc(0);
    if (typeof body === 'string') return Buffer.from(body);
    if (Buffer.isBuffer(body)) return body;
    const read = await readUpTo(body, this.maxMessageBytes, { ...(call.touch === undefined ? {} : { touch: call.touch }), ...(call.signal === undefined ? {} : { signal: call.signal }) });
    const refused = read.failure?.error.message ?? (read.ended ? undefined : `the request body is longer than tcp.maxMessageBytes (${this.maxMessageBytes} bytes), the most sent to an ${this.kind} route`);
    if (refused === undefined) return Buffer.concat(read.chunks, read.size);
    body.resume();
    throw new Error(`route ${call.name}: ${refused}`);
  }
}

export interface RouteSenderOptions {
  /** Extra CA certificates (PEM) trusted for secured routes, on top of the system's. */
  trustedCAs?: readonly string[];
  /** The longest message sent to, and reply read from, an `mllp` or `tcp` route. */
  maxMessageBytes: number;
  /** Pooled MLLP connections per upstream. */
  connectionsPerUpstream: number;
  /** Pooled MLLP connections idle this long are closed. */
  idleTimeoutMs: number;
}

/** The route senders of one instance: one HTTP pool, one MLLP pool and one TCP sender shared by every channel. */
export class RouteSenderPool {
  readonly #http: HttpRouter;
  readonly #mllp: MllpRouter;
  readonly #tcp: TcpRouter;
  readonly senders: RouteSenders;

  constructor(options: RouteSenderOptions) {
    const trustedCAs = options.trustedCAs ?? [];
    this.#http = new HttpRouter({ trustedCAs });
    this.#mllp = new MllpRouter({ trustedCAs, connectionsPerUpstream: options.connectionsPerUpstream, idleTimeoutMs: options.idleTimeoutMs, maxReplyBytes: options.maxMessageBytes });
    this.#tcp = new TcpRouter({ trustedCAs, maxReplyBytes: options.maxMessageBytes });
    this.senders = {
      http: this.#http,
      mllp: new MessageRouteSender('mllp', this.#mllp, options.maxMessageBytes),
      tcp: new MessageRouteSender('tcp', this.#tcp, options.maxMessageBytes),
    } satisfies Record<RouteType, RouteSender>;
  }

  /** Verifies new secured connections of every kind against a new CA list. */
  useTrustedCAs(trustedCAs: readonly string[]): void {
    this.#http.useTrustedCAs(trustedCAs);
    this.#mllp.useTrustedCAs(trustedCAs);
    this.#tcp.useTrustedCAs(trustedCAs);
  }

  /** Closes every pooled connection. */
  async close(): Promise<void> {
    await this.#http.close();
    await this.#mllp.close();
    await this.#tcp.close();
  }
}
