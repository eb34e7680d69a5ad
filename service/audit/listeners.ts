/**
 * The audit repository's listeners: syslog over UDP, TCP and TLS (`auditing.servers.*`), each handing whole
 * messages to the intake. They start with the service (a port that cannot be bound fails the start, naming its
 * setting) and stop with it. TLS uses the server certificate and, unless `requireClientCertificate` is off, refuses
 * a sender whose certificate is missing or does not chain to the trusted CAs (ATNA's node authentication), logging
 * its address and the reason. Each listener counts what it received and refused, for /about and Prometheus.
 */
import type { Socket as DatagramSocket } from 'node:dgram';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { Server as TlsServer } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { peerCertificateOf } from '../tls/peer-certificate.js';
import { listenerContext } from '../tls/server-certificate.js';
import type { ServerCertificate } from '../tls/server-certificate.js';
import { AuditStreamConnection } from './listener-connection.js';
import type { AuditIntakeHandler, AuditListenerCounters } from './listener-connection.js';
import { listenUdp } from './listener-udp.js';
import type { AuditTransport } from './peer.js';
import type { Admission } from '../transports/admission.js';

export type { AuditFlowControl, AuditIntakeHandler, AuditListenerCounters } from './listener-connection.js';

export interface AuditServerSettings {
  enabled: boolean;
  port: number;
}

export interface AuditListenersOptions {
  handler: AuditIntakeHandler;
  /** `auditing.host`. */
  host: string;
  servers: { udp: AuditServerSettings; tcp: AuditServerSettings; tls: AuditServerSettings & { requireClientCertificate: boolean } };
  certificate: ServerCertificate;
  /** CA PEMs a TLS sender's certificate must chain to. */
  trustedCAs: readonly string[];
  limits: {
    maxMessageBytes: number;
    /** Per TCP or TLS listener. */
    maxConnections: number;
    idleTimeoutMs: number;
    /** How long a TLS handshake may take; by default the idle timeout, at most 30 s. */
    handshakeTimeoutMs?: number;
    /** One address's share of each TCP or TLS listener; by default the whole listener's. */
    maxConnectionsPerAddress?: number;
    /** A connection that sends nothing for this long is closed; by default only the idle timeout. */
    silentTimeoutMs?: number;
    /** One message must arrive whole within this long of its first byte; by default only the idle timeout. */
    frameTimeoutMs?: number;
  };
  /** The instance's shared connection admission (per-address and process-wide counts); none in some tests. */
  admission?: Admission;
  logger: Logger;
}

/** One listener's counters, with what it is. */
export interface AuditListenerStats extends AuditListenerCounters {
  transport: AuditTransport;
  port: number;
  /** TCP and TLS connections open now. */
  connections: number;
}

/** Refused connections (over the limit, or a failed handshake) are logged at most this often per listener. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;
const MAX_HANDSHAKE_TIMEOUT_MS = 30_000;

interface StreamListener {
  transport: 'tcp' | 'tls';
  port: number;
  server: Server;
  connections: Set<AuditStreamConnection>;
  /** The raw sockets of a TLS listener (in their handshake or not), so a stop also ends the handshakes. */
  sockets: Set<Socket>;
  counters: AuditListenerCounters;
  refusalLoggedAt: number;
  refusedSince: number;
}

interface DatagramListener {
  transport: 'udp';
  port: number;
  socket: DatagramSocket;
  counters: AuditListenerCounters;
}

type Listener = StreamListener | DatagramListener;

function zeroCounters(): AuditListenerCounters {
  return { received: 0, malformedFraming: 0, refusedConnections: 0, tooLarge: 0 };
}

/** An error whose message names the setting to change; start-up fails with it. */
export class AuditListenerError extends Error {
  override readonly name = 'AuditListenerError';
}

/** The enabled audit listeners of one service instance. */
export class AuditListeners {
  readonly #options: AuditListenersOptions;
  #listeners: Listener[] = [];
  #stopped = false;

  constructor(options: AuditListenersOptions) {
    this.#options = options;
  }

  /** Serves a new pair on the TLS listener and judges new senders' chains by the new CA list; open connections stay. */
  useCertificate(certificate: ServerCertificate, trustedCAs: readonly string[]): void {
    for (const listener of this.#listeners) {
      if (listener.transport === 'tls') (listener.server as TlsServer).setSecureContext(listenerContext(certificate, trustedCAs));
    }
  }

  /** Binds every enabled listener; rejects (after letting go of any already bound) when one cannot be bound. */
  async start(): Promise<void> {
    const { servers, logger } = this.#options;
    try {
      if (servers.udp.enabled) this.#listeners.push(await this.#startUdp(servers.udp.port));
      if (servers.tcp.enabled) this.#listeners.push(await this.#startStream('tcp', servers.tcp.port));
      if (servers.tls.enabled) this.#listeners.push(await this.#startStream('tls', servers.tls.port));
    } catch (err) {
      await this.stop();
      throw err;
    }
    for (const listener of this.#listeners) logger.info({ transport: listener.transport, host: this.#options.host, port: listener.port }, 'audit repository listening');
  }

  /** Ports bound right now, for GET /about. */
  bound(): { protocol: AuditTransport; port: number }[] {
    return this.#listeners.map((l) => ({ protocol: l.transport, port: l.port }));
  }

  /** Each bound listener's counters, for /about and the Prometheus exposition. */
  stats(): AuditListenerStats[] {
    return this.#listeners.map((l) => ({ transport: l.transport, port: l.port, connections: l.transport === 'udp' ? 0 : l.connections.size, ...l.counters }));
  }

  /**
   * Stops listening and ends open connections. Messages are handed on as soon as they are whole, so every whole
   * message already received has been handed over; a part-read one is dropped (and logged).
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    await Promise.all(listeners.map((l) => (l.transport === 'udp' ? closeDatagram(l.socket) : this.#stopStream(l))));
  }

  async #stopStream(listener: StreamListener): Promise<void> {
    const closed = new Promise<void>((resolve) => listener.server.close(() => resolve()));
    for (const socket of listener.sockets) socket.destroy();
    const connections = [...listener.connections];
    for (const connection of connections) connection.close();
    await Promise.all(connections.map((c) => c.closed));
    await closed;
  }

  async #startUdp(port: number): Promise<DatagramListener> {
    const { host, handler, limits, logger } = this.#options;
    const counters = zeroCounters();
    try {
      const socket = await listenUdp({ host, port, handler, counters, maxMessageBytes: limits.maxMessageBytes, logger: logger.child({ transport: 'udp' }) });
      return { transport: 'udp', port: socket.address().port, socket, counters };
    } catch (err) {
      throw bindError(err, 'udp', host, port);
    }
  }

  async #startStream(transport: 'tcp' | 'tls', port: number): Promise<StreamListener> {
    const { host, limits } = this.#options;
    const server = transport === 'tls' ? this.#tlsServer() : createNetServer();
    const listener: StreamListener = { transport, port, server, connections: new Set(), sockets: new Set(), counters: zeroCounters(), refusalLoggedAt: 0, refusedSince: 0 };
    server.maxConnections = limits.maxConnections;
    server.on('drop', (data?: { remoteAddress?: string; remotePort?: number }) => {
      this.#refused(listener, { peer: `${data?.remoteAddress ?? ''}:${data?.remotePort ?? 0}`, maxConnections: limits.maxConnections }, 'refused an audit connection: the listener has as many connections as auditing.maxConnections allows');
    });
    const { admission } = this.#options;
    const label = `audit-${transport}`;
    // Admitted first: one sender may hold only its share of the listener, and the process its cap.
    const admitted = (socket: Socket) => {
      if (admission === undefined || admission.admit(label, socket, limits.maxConnectionsPerAddress)) return true;
      listener.counters.refusedConnections++;
      return false;
    };
    if (transport === 'tcp') {
      server.on('connection', (socket: Socket) => {
        if (admitted(socket)) this.#accept(listener, socket);
      });
    } else {
      server.on('connection', (socket: Socket) => {
        if (!admitted(socket)) return;
        listener.sockets.add(socket);
        socket.once('close', () => listener.sockets.delete(socket));
      });
      server.on('secureConnection', (socket: TLSSocket) => this.#acceptSecure(listener, socket));
      server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: TLSSocket) => {
        this.#refused(listener, { peer: `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`, reason: err.message, code: err.code }, 'an audit sender failed the TLS handshake');
        socket.destroy();
      });
    }
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      throw bindError(err, transport, host, port);
    }
    // A failed accept (EMFILE) repeats per connection: through the admission it is logged once a window.
    if (admission !== undefined) server.on('error', (err: NodeJS.ErrnoException) => admission.listenerError(label, err));
    else server.on('error', (err) => this.#options.logger.warn({ err, transport }, 'audit listener error'));
    listener.port = (server.address() as AddressInfo).port;
    return listener;
  }

  /**
   * The TLS server, built as the tls channels' listeners build theirs (transports/sockets.ts). The certificate is
   * always requested; its chain is judged on `secureConnection` rather than by `rejectUnauthorized`, because Node
   * drops a refused chain without saying whose it was or why, and the refusal must be logged with both.
   */
  #tlsServer(): Server {
    const { certificate, trustedCAs, limits } = this.#options;
    return createTlsServer({
      ...listenerContext(certificate, trustedCAs),
      requestCert: true,
      rejectUnauthorized: false,
      handshakeTimeout: limits.handshakeTimeoutMs ?? Math.min(limits.idleTimeoutMs, MAX_HANDSHAKE_TIMEOUT_MS),
    });
  }

  #acceptSecure(listener: StreamListener, socket: TLSSocket): void {
    const required = this.#options.servers.tls.requireClientCertificate;
    const certificate = peerCertificateOf(socket);
    const peer = `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`;
    if (required && (certificate === undefined || !certificate.authorized)) {
      const reason = certificate === undefined ? 'no client certificate' : `the client certificate does not chain to the trusted CAs (${String(socket.authorizationError)})`;
      listener.counters.refusedConnections++;
      // Each refusal is logged: a node failing authentication is what an ATNA administrator looks for.
      this.#options.logger.warn({ transport: 'tls', peer, reason, ...(certificate?.subjectCN !== undefined ? { subject: certificate.subjectCN } : {}) }, 'refused an audit sender: auditing.servers.tls.requireClientCertificate asks for a trusted client certificate');
      socket.destroy();
      return;
    }
    // A name from a certificate that does not chain proves nothing, so only a trusted one is passed on.
    const subject = certificate?.authorized === true ? certificate.subjectCN : undefined;
    this.#accept(listener, socket, subject);
  }

  #accept(listener: StreamListener, socket: Socket, certificateSubject?: string): void {
    const { handler, limits } = this.#options;
    if (this.#stopped) {
      socket.destroy();
      return;
    }
    const address = socket.remoteAddress ?? '';
    const port = socket.remotePort ?? 0;
    const connection = new AuditStreamConnection(socket, {
      peer: { transport: listener.transport, address, port, ...(certificateSubject !== undefined ? { certificateSubject } : {}) },
      handler,
      counters: listener.counters,
      maxMessageBytes: limits.maxMessageBytes,
      idleTimeoutMs: limits.idleTimeoutMs,
      ...(limits.silentTimeoutMs === undefined ? {} : { silentTimeoutMs: limits.silentTimeoutMs }),
      ...(limits.frameTimeoutMs === undefined ? {} : { frameTimeoutMs: limits.frameTimeoutMs }),
      deadline: (reason, fields) => this.#options.admission?.refused(`audit-${listener.transport}`, address, reason, fields),
      logger: this.#options.logger.child({ transport: listener.transport, peer: `${address}:${port}` }),
    });
    listener.connections.add(connection);
    void connection.closed.then(() => listener.connections.delete(connection));
  }

  /** Counts a refused connection; logs it, at most once a minute per listener under a flood. */
  #refused(listener: StreamListener, fields: Record<string, unknown>, message: string): void {
    listener.counters.refusedConnections++;
    listener.refusedSince++;
    const now = Date.now();
    if (now - listener.refusalLoggedAt < REFUSAL_LOG_INTERVAL_MS) return;
    this.#options.logger.warn({ transport: listener.transport, port: listener.port, ...fields, refused: listener.refusedSince }, message);
    listener.refusalLoggedAt = now;
    listener.refusedSince = 0;
  }
}

function closeDatagram(socket: DatagramSocket): Promise<void> {
  return new Promise((resolve) => socket.close(() => resolve()));
}

/** The start-up error for a port that cannot be bound, naming the setting. */
function bindError(err: unknown, transport: AuditTransport, host: string, port: number): AuditListenerError {
  const e = err as NodeJS.ErrnoException;
  const key = `auditing.servers.${transport}.port`;
  const what = `the ${transport.toUpperCase()} audit listener cannot listen on ${host}:${port} (${key})`;
  switch (e.code) {
    case 'EADDRINUSE':
      return new AuditListenerError(`${what}: the port is already in use by another program; choose another ${key} or stop that program`, { cause: err });
    case 'EACCES':
    case 'EPERM':
      return new AuditListenerError(`${what}: not permitted${port < 1024 ? ' (ports below 1024 need administrator rights)' : ''}`, { cause: err });
    case 'EADDRNOTAVAIL':
      return new AuditListenerError(`${what}: the address does not belong to this computer (auditing.host)`, { cause: err });
    default:
      return new AuditListenerError(`${what}: ${e.message}`, { cause: err });
  }
}
