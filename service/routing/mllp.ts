/**
 * Outbound MLLP to `mllp` routes: each message framed, sent, and answered by exactly one framed reply, over
 * connections pooled per upstream. MLLP is request-reply, so a connection carries one message at a time; a connection
 * goes back to the pool only after an exchange that ended cleanly, because a reply that arrives late or twice would
 * otherwise be read as the answer to the next message.
 */
import type { Socket } from 'node:net';
import { CARRIAGE_RETURN, frameMllp, MllpDecoder } from '../domain/codecs/mllp-framing.js';
import { RouteError } from './http.js';
import type { RouteTarget } from './http.js';
import { abortFailure, caListOf, openSocket, readyEvent, socketFailure, timeoutFailure, upstreamLabel } from './socket-connect.js';
import type { SocketRouteCall } from './socket-connect.js';

export type { SocketRouteCall } from './socket-connect.js';

export interface MllpRouterOptions {
  /** PEM, trusted besides the system roots for secured routes. */
  trustedCAs?: readonly string[];
  /** Pool size per host:port:secured. */
  connectionsPerUpstream: number;
  /** Pooled idle connections are closed after this. */
  idleTimeoutMs: number;
  /** A longer reply is an error, never cut short. */
  maxReplyBytes: number;
}

const noop = (): void => undefined;

const LINE_FEED = 0x0a;

function isLineBreaks(chunk: Buffer): boolean {
  return chunk.every((byte) => byte === CARRIAGE_RETURN || byte === LINE_FEED);
}

/** One socket of a pool, with what the pool needs to know about it. */
class Connection {
  /** The TCP connection (and TLS handshake) is up. */
  connected = false;
  /** It has finished an exchange before: a failure now may be the peer having closed it while it sat idle. */
  reused = false;
  #leaveIdle: (() => void) | undefined;

  constructor(
    readonly socket: Socket,
    ready: 'connect' | 'secureConnect',
  ) {
    socket.once(ready, () => {
      this.connected = true;
    });
  }

  /** Watches the idle socket: a peer that closes it, errs or talks unasked makes it unusable, as does the idle timeout. */
  park(idleTimeoutMs: number, gone: () => void): void {
    const socket = this.socket;
    const timer = setTimeout(gone, idleTimeoutMs);
    timer.unref();
    // Some peers follow a frame with a line break, late; that is not a message, anything else unasked is.
    const onData = (chunk: Buffer): void => {
      if (!isLineBreaks(chunk)) gone();
    };
    socket.on('data', onData);
    socket.on('end', gone);
    socket.on('error', gone);
    socket.on('close', gone);
    this.#leaveIdle = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', gone);
      socket.off('error', gone);
      socket.off('close', gone);
      this.#leaveIdle = undefined;
    };
  }

  /** Stops watching it as idle (it is about to carry a message, or to be destroyed). */
  unpark(): void {
    this.#leaveIdle?.();
  }

  destroy(err?: Error): void {
    this.unpark();
    // An error the socket emits while closing must not become an uncaught exception.
    this.socket.on('error', noop);
    this.socket.destroy(err);
  }
}

interface Waiter {
  grant(connection: Connection): void;
  refuse(err: RouteError): void;
}

/** The connections to one upstream (host, port, TLS or not): at most `limit`, the rest of the senders queued in order. */
class UpstreamPool {
  readonly #idle: Connection[] = [];
  readonly #all = new Set<Connection>();
  /** Connections open or opening, busy or idle; a slot is taken before the socket exists. */
  #count = 0;
  readonly #waiters: Waiter[] = [];
  #closed = false;

  constructor(
    readonly label: string,
    readonly limit: number,
    readonly idleTimeoutMs: number,
    readonly open: () => Connection,
  ) {}

  /** Grants a connection now (idle, or newly opened while under the limit) or queues the waiter; returns a cancel. */
  acquire(waiter: Waiter): () => void {
    if (this.#closed) {
      waiter.refuse(new RouteError('connection', `${this.label}: the MLLP router is closed`));
      return noop;
    }
    for (let idle = this.#idle.pop(); idle !== undefined; idle = this.#idle.pop()) {
      // One that is closing but has not yet said so (its 'close' comes on a later tick) would swallow the message.
      if (idle.socket.destroyed || !idle.socket.writable) {
        this.#drop(idle);
        continue;
      }
      idle.unpark();
      waiter.grant(idle);
      return noop;
    }
    if (this.#count < this.limit) {
      waiter.grant(this.#fresh());
      return noop;
    }
    this.#waiters.push(waiter);
    return () => {
      const at = this.#waiters.indexOf(waiter);
      if (at !== -1) this.#waiters.splice(at, 1);
    };
  }

  /** Takes a connection back: to the next waiter or the idle list when `reusable`, destroyed otherwise. */
  release(connection: Connection, reusable: boolean): void {
    if (!reusable || this.#closed || connection.socket.destroyed) {
      this.#drop(connection);
      return;
    }
    connection.reused = true;
    const next = this.#waiters.shift();
    if (next !== undefined) {
      next.grant(connection);
      return;
    }
    this.#idle.push(connection);
    connection.park(this.idleTimeoutMs, () => this.#dropIdle(connection));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Destroys a connection that failed and opens a fresh one in its slot, for the one retry. */
  replace(connection: Connection): Connection {
    this.#all.delete(connection);
    connection.destroy();
    this.#count--;
    return this.#fresh();
  }

  /** Destroys every connection and refuses every waiter; resolves once the sockets are closed. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.refuse(new RouteError('connection', `${this.label}: the MLLP router was closed before a connection became free`));
    const closing = [...this.#all].map(
      (connection) =>
        new Promise<void>((resolve) => {
          if (connection.socket.closed) {
            resolve();
            return;
          }
          connection.socket.once('close', () => resolve());
          connection.destroy(new Error('Junction closed the connection (the MLLP router is shutting down)'));
        }),
    );
    this.#idle.length = 0;
    await Promise.all(closing);
  }

  #fresh(): Connection {
    const connection = this.open();
    this.#all.add(connection);
    this.#count++;
    return connection;
  }

  #dropIdle(connection: Connection): void {
    const at = this.#idle.indexOf(connection);
    if (at !== -1) this.#idle.splice(at, 1);
    this.#drop(connection);
  }

  #drop(connection: Connection): void {
    if (!this.#all.delete(connection)) return;
    connection.destroy();
    this.#count--;
    // A freed slot lets the first waiter open a connection of its own.
    if (!this.#closed && this.#count < this.limit) {
      const next = this.#waiters.shift();
      if (next !== undefined) next.grant(this.#fresh());
    }
  }
}

type Outcome = { reply: Buffer; clean: boolean } | { error: RouteError; retryable: boolean };

interface Exchange {
  /** Bytes of the reply received so far. */
  received(): number;
  /** Stops listening; the caller destroys the connection. */
  cancel(): void;
}

/** Writes one framed message and reads one framed reply; `done` is called once, with the reply or why there is none. */
function exchange(connection: Connection, framed: Buffer, maxReplyBytes: number, label: string, done: (outcome: Outcome) => void): Exchange {
  const socket = connection.socket;
  const decoder = new MllpDecoder({ maxMessageBytes: maxReplyBytes });
  let received = 0;

  const stop = (): void => {
    socket.off('data', onData);
    socket.off('end', onEnd);
    socket.off('error', onError);
    socket.off('close', onClose);
  };
  const finish = (outcome: Outcome): void => {
    stop();
    done(outcome);
  };
  // A connection that sat in the pool may have been closed by the peer just before this message went out: nothing of
  // a reply has come, so the message is sent again once, on a fresh connection.
  const closedWhileIdle = (): boolean => connection.reused && received === 0;

  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    const { messages, problem } = decoder.push(chunk);
    const reply = messages[0];
    if (reply !== undefined) {
      finish({ reply, clean: messages.length === 1 && problem === undefined && !decoder.midMessage });
      return;
    }
    if (problem !== undefined) finish({ error: new RouteError('connection', `${label} sent a reply that is not acceptable MLLP: ${problem}`), retryable: false });
  };
  const onEnd = (): void => {
    if (received === 0) {
      finish({ error: new RouteError('connection', `${label} closed the connection without replying`), retryable: closedWhileIdle() });
      return;
    }
    finish({ error: new RouteError('connection', `${label} closed the connection in the middle of its reply, after ${received} bytes`), retryable: false });
  };
  const onError = (err: Error & { code?: string }): void => {
    const reset = err.code === 'ECONNRESET' || err.code === 'EPIPE';
    finish({ error: socketFailure(err, label, connection.connected, received), retryable: reset && closedWhileIdle() });
  };
  const onClose = (): void => {
    finish({ error: new RouteError('connection', `${label}: the connection closed before a reply arrived`), retryable: closedWhileIdle() });
  };

  socket.on('data', onData);
  socket.on('end', onEnd);
  socket.on('error', onError);
  socket.on('close', onClose);
  socket.write(framed);
  return { received: () => received, cancel: stop };
}

/** Sends messages to MLLP upstreams over pooled connections. */
export class MllpRouter {
  readonly #options: MllpRouterOptions;
  #ca: string[] | undefined;
  readonly #pools = new Map<string, UpstreamPool>();
  #closed = false;

  constructor(options: MllpRouterOptions) {
    if (!Number.isSafeInteger(options.connectionsPerUpstream) || options.connectionsPerUpstream < 1) throw new RangeError('connectionsPerUpstream must be a positive integer');
    if (!Number.isSafeInteger(options.maxReplyBytes) || options.maxReplyBytes < 1) throw new RangeError('maxReplyBytes must be a positive integer');
    if (!(options.idleTimeoutMs > 0)) throw new RangeError('idleTimeoutMs must be positive');
    this.#options = options;
    this.#ca = caListOf(options.trustedCAs);
  }

  /** Verifies connections opened from now on against a new CA list (pooled ones were verified already). */
  useTrustedCAs(trustedCAs: readonly string[]): void {
    this.#ca = caListOf(trustedCAs);
  }

  /** Frames the message, sends it, resolves with the one framed reply unframed. Rejects with RouteError('connection'|'timeout', message naming host:port and what happened). */
  send(call: SocketRouteCall): Promise<Buffer> {
    const label = upstreamLabel('MLLP', call.target);
    if (this.#closed) return Promise.reject(new RouteError('connection', `${label}: the MLLP router is closed`));
    const signal = call.signal;
    if (signal?.aborted === true) return Promise.reject(abortFailure(label, signal));
    const pool = this.#poolOf(call.target, label);
    const framed = frameMllp(call.message);

    return new Promise<Buffer>((resolve, reject) => {
      let settled = false;
      let current: Connection | undefined;
      let active: Exchange | undefined;
      let retried = false;

      const settle = (): void => {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        cancelWait();
      };
      // The timeout and the abort end the exchange where it stands; its connection is destroyed so that a late
      // reply can never be read as another message's.
      const giveUp = (err: RouteError): void => {
        if (settled) return;
        settle();
        if (active !== undefined && current !== undefined) {
          active.cancel();
          pool.release(current, false);
        }
        reject(err);
      };
      const onAbort = (): void => giveUp(abortFailure(label, signal as AbortSignal));
      const timer = setTimeout(() => {
        const stage = current === undefined ? 'queued' : current.connected ? 'replying' : 'connecting';
        giveUp(timeoutFailure(label, call.timeoutMs, stage, active?.received() ?? 0));
      }, call.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });

      const run = (connection: Connection): void => {
        current = connection;
        active = exchange(connection, framed, this.#options.maxReplyBytes, label, (outcome) => {
          active = undefined;
          if ('reply' in outcome) {
            settle();
            const wrong = call.check?.(outcome.reply);
            pool.release(connection, outcome.clean && wrong === undefined);
            if (wrong === undefined) resolve(outcome.reply);
            else reject(new RouteError('connection', `${label} ${wrong}`));
            return;
          }
          if (outcome.retryable && !retried && !pool.closed) {
            retried = true;
            run(pool.replace(connection));
            return;
          }
          settle();
          pool.release(connection, false);
          reject(outcome.error);
        });
      };

      let cancelWait = noop;
      cancelWait = pool.acquire({
        grant: run,
        refuse: (err) => giveUp(err),
      });
    });
  }

  /** Closes every pooled connection; later sends reject. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#pools.values()].map((pool) => pool.close()));
  }

  #poolOf(target: RouteTarget, label: string): UpstreamPool {
    const key = `${target.host}:${target.port}:${target.secured}`;
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      pool = new UpstreamPool(label, this.#options.connectionsPerUpstream, this.#options.idleTimeoutMs, () => new Connection(openSocket(target, this.#ca), readyEvent(target)));
      this.#pools.set(key, pool);
    }
    return pool;
  }
}
