/**
 * Outbound raw TCP to `tcp` routes: a fresh connection per message, the message written and the connection
 * half-closed, and everything the peer sends until it ends is the reply. There is no framing, so the end of the
 * peer's stream is the only end of a reply, and nothing can be pooled.
 */
import type { Socket } from 'node:net';
import { RouteError } from './http.js';
import { abortFailure, caListOf, openSocket, readyEvent, socketFailure, timeoutFailure, upstreamLabel } from './socket-connect.js';
import type { SocketRouteCall } from './socket-connect.js';

export interface TcpRouterOptions {
  /** PEM, trusted besides the system roots for secured routes. */
  trustedCAs?: readonly string[];
  /** A longer reply is an error, never cut short. */
  maxReplyBytes: number;
}

const noop = (): void => undefined;

/** Sends messages to TCP upstreams, one connection each. */
export class TcpRouter {
  readonly #options: TcpRouterOptions;
  #ca: string[] | undefined;
  readonly #open = new Set<Socket>();
  #closed = false;

  constructor(options: TcpRouterOptions) {
    this.#options = options;
    this.#ca = caListOf(options.trustedCAs);
  }

  /** Verifies connections opened from now on against a new CA list (pooled ones were verified already). */
  useTrustedCAs(trustedCAs: readonly string[]): void {
    this.#ca = caListOf(trustedCAs);
  }

  /** Connects, writes the message, half-closes, reads until the peer ends; resolves with everything read. Rejects with RouteError. */
  send(call: SocketRouteCall): Promise<Buffer> {
    const label = upstreamLabel('TCP', call.target);
    if (this.#closed) return Promise.reject(new RouteError('connection', `${label}: the TCP router is closed`));
    const signal = call.signal;
    if (signal?.aborted === true) return Promise.reject(abortFailure(label, signal));
    const max = this.#options.maxReplyBytes;

    return new Promise<Buffer>((resolve, reject) => {
      const socket = openSocket(call.target, this.#ca);
      this.#open.add(socket);
      const parts: Buffer[] = [];
      let received = 0;
      let connected = false;

      const onReady = (): void => {
        connected = true;
      };
      const onData = (chunk: Buffer): void => {
        received += chunk.length;
        if (received > max) {
          fail(new RouteError('connection', `${label} sent a reply longer than the ${max} bytes allowed`));
          return;
        }
        parts.push(chunk);
      };
      const onEnd = (): void => {
        const reply = Buffer.concat(parts, received);
        settle();
        resolve(reply);
      };
      const onError = (err: Error & { code?: string }): void => fail(socketFailure(err, label, connected, received));
      const onClose = (): void => fail(new RouteError('connection', `${label}: the connection closed before the reply ended`));
      const onAbort = (): void => fail(abortFailure(label, signal as AbortSignal));
      const timer = setTimeout(() => {
        fail(connected ? timeoutFailure(label, call.timeoutMs, 'replying', received) : timeoutFailure(label, call.timeoutMs, 'connecting', 0));
      }, call.timeoutMs);

      const ready = readyEvent(call.target);
      function settle(): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        socket.off(ready, onReady);
        socket.off('data', onData);
        socket.off('end', onEnd);
        socket.off('error', onError);
        socket.off('close', onClose);
        socket.on('error', noop);
        socket.destroy();
      }
      // Called once at most: settle removes every listener that could call it again.
      function fail(err: RouteError): void {
        settle();
        reject(err);
      }

      socket.once(ready, onReady);
      socket.on('data', onData);
      socket.on('end', onEnd);
      socket.on('error', onError);
      socket.on('close', onClose);
      socket.once('close', () => this.#open.delete(socket));
      signal?.addEventListener('abort', onAbort, { once: true });
      socket.end(call.message);
    });
  }

  /** Destroys the sockets still open; later sends reject. */
  async close(): Promise<void> {
    this.#closed = true;
    const closing = [...this.#open].map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.closed) {
            resolve();
            return;
          }
          socket.once('close', () => resolve());
          socket.on('error', noop);
          socket.destroy(new Error('Junction closed the connection (the TCP router is shutting down)'));
        }),
    );
    await Promise.all(closing);
  }
}
