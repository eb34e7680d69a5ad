/**
 * The inbound listeners of tcp and tls channels: one server per enabled channel on its own port, kept in line with
 * the channels as they change (bind, move, stop), each connection handed to a SocketConnection. A port that cannot
 * be bound fails that channel only, with a reason an administrator can act on, and is tried again at the next sync.
 */
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { Server as TlsServer } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { ChannelListener } from '../contracts/channels.js';
import type { MessageHandler } from '../pipeline/inbound-message.js';
import { listenerOf } from '../domain/channels/channel-kinds.js';
import type { ChannelRecord } from '../storage/records.js';
import { peerCertificateOf } from '../tls/peer-certificate.js';
import { listenerContext } from '../tls/server-certificate.js';
import type { ServerCertificate } from '../tls/server-certificate.js';
import { Admission } from './admission.js';
import { bindFailure } from './bind-failure.js';
import { SocketConnection } from './socket-connection.js';

export interface ChannelListenersOptions {
  handler: MessageHandler;
  /** The tcp and tls channels that should listen: enabled, type tcp or tls (the lead passes a store query). */
  source: () => Promise<ChannelRecord[]>;
  certificate: ServerCertificate;
  /** CA PEMs trusted for client certificates. */
  trustedCAs: readonly string[];
  limits: {
    maxMessageBytes: number;
    idleTimeoutMs: number;
    maxConnectionsPerChannel: number;
    /** One address's share of a channel's connections; by default the whole channel's. */
    maxConnectionsPerAddress?: number;
    /** How long a connection may stay open before its first byte; by default the idle timeout. */
    silentTimeoutMs?: number;
    /** How long one message may take to arrive, from its first byte; by default no deadline but the idle timeout. */
    frameTimeoutMs?: number;
    /** By default the idle timeout, at most 120 s. */
    handshakeTimeoutMs?: number;
  };
  /** The instance's shared connection admission: per-address and process-wide counts, refusals logged and counted. */
  admission?: Admission;
  logger: Logger;
}

/** How long messages in flight get to be answered when a listener stops or moves. */
const STOP_GRACE_MS = 10_000;

interface Listener {
  id: string;
  /** What the bound server depends on: a change of it moves the listener. */
  shape: string;
  protocol: 'tcp' | 'tls';
  host: string;
  port: number;
  channel: ChannelRecord;
  state: ChannelListener;
  server?: Server;
  connections: Set<SocketConnection>;
  /** TLS sockets still in their handshake, by remote address and port. */
  handshaking: Map<string, Socket>;
  retired: boolean;
  /** How the admission names this listener (in its logs and the Prometheus label). */
  label: string;
}

function shapeOf(channel: ChannelRecord): string {
  return JSON.stringify([channel.type, hostOf(channel), channel.tcpPort, channel.tcpFraming ?? 'auto', channel.requireClientCertificate === true]);
}

function hostOf(channel: ChannelRecord): string {
  return channel.tcpHost === undefined || channel.tcpHost.trim() === '' ? '0.0.0.0' : channel.tcpHost.trim();
}

function remoteKey(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}|${socket.remotePort ?? 0}`;
}

/** The listeners of every tcp and tls channel. */
export class ChannelListeners {
  readonly #options: ChannelListenersOptions;
  readonly #admission: Admission;
  readonly #limits: Required<ChannelListenersOptions['limits']>;
  readonly #listeners = new Map<string, Listener>();
  /** Listeners taken out of service whose connections are still finishing. */
  readonly #retiring = new Set<Listener>();
  #dirty = false;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** The pair and CAs new tls listeners are built with; replaced by useCertificate. */
  #tls: { certificate: ServerCertificate; trustedCAs: readonly string[] };

  constructor(options: ChannelListenersOptions) {
    this.#options = options;
    this.#tls = { certificate: options.certificate, trustedCAs: options.trustedCAs };
    const { limits } = options;
    this.#limits = {
      maxConnectionsPerAddress: limits.maxConnectionsPerChannel,
      silentTimeoutMs: limits.idleTimeoutMs,
      frameTimeoutMs: 0,
      handshakeTimeoutMs: Math.min(limits.idleTimeoutMs, 120_000),
      ...limits,
    };
    this.#admission = options.admission ?? new Admission({ perAddress: limits.maxConnectionsPerChannel, total: Number.POSITIVE_INFINITY, logger: options.logger });
  }

  /** Serves a new pair and CA list on every tls channel (and on those started later); open connections keep theirs. */
  useCertificate(certificate: ServerCertificate, trustedCAs: readonly string[]): void {
    this.#tls = { certificate, trustedCAs };
    for (const listener of [...this.#listeners.values(), ...this.#retiring]) {
      if (listener.protocol === 'tls' && listener.server !== undefined) (listener.server as TlsServer).setSecureContext(listenerContext(certificate, trustedCAs));
    }
  }

  /** Reads the source and brings the listeners in line; resolves when every listener has bound or failed. */
  start(): Promise<void> {
    this.changed();
    return this.settled();
  }

  /** A channel was created, changed or deleted: re-sync soon (coalesced: many calls while a sync runs → one more sync). */
  changed(): void {
    if (this.#stopped) return;
    this.#dirty = true;
    this.#running ??= this.#syncWhileDirty().finally(() => {
      this.#running = undefined;
    });
  }

  /** Resolves once no sync is pending or running (tests and the API await it after a channel write). */
  async settled(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** The listener state of a channel, or undefined when it has none. */
  state(channelId: string): ChannelListener | undefined {
    const listener = this.#listeners.get(channelId);
    return listener === undefined ? undefined : { ...listener.state };
  }

  /** Ports bound right now, for GET /about. */
  bound(): { protocol: 'tcp' | 'tls'; port: number }[] {
    return [...this.#listeners.values()].filter((l) => l.state.state === 'listening').map((l) => ({ protocol: l.protocol, port: l.state.port }));
  }

  /** Stops listening, ends idle connections, lets messages in flight be answered (bounded grace), then destroys the rest. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.settled();
    for (const listener of this.#listeners.values()) this.#retire(listener);
    this.#listeners.clear();
    const retiring = [...this.#retiring];
    const connections = retiring.flatMap((l) => [...l.connections]);
    let deadline: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      deadline = setTimeout(() => resolve('late'), STOP_GRACE_MS);
      deadline.unref();
    });
    // The transactions of messages in flight complete even when their sender has gone; wait for them within the grace.
    const outcome = await Promise.race([Promise.all(connections.map((c) => c.closed.then(() => c.handled()))), late]);
    clearTimeout(deadline);
    if (outcome === 'late') this.#options.logger.warn({ graceMs: STOP_GRACE_MS }, 'messages still in flight when the channel listeners stopped');
    for (const connection of connections) connection.destroy();
    await Promise.all(connections.map((c) => c.closed));
  }

  async #syncWhileDirty(): Promise<void> {
    while (this.#dirty && !this.#stopped) {
      this.#dirty = false;
      try {
        await this.#sync();
      } catch (err) {
        this.#options.logger.warn({ err }, 'could not bring the channel listeners in line with the channels');
      }
    }
  }

  async #sync(): Promise<void> {
    const channels = await this.#options.source();
    const wanted = new Map<string, ChannelRecord>();
    for (const channel of channels) {
      if (listenerOf(channel) !== null && (channel.status ?? 'enabled') === 'enabled') wanted.set(String(channel._id), channel);
    }
    const binds: Listener[] = [];
    // Everything that goes is closed before anything binds, so two channels may swap ports in one change.
    for (const [id, listener] of this.#listeners) {
      const channel = wanted.get(id);
      if (channel === undefined) {
        this.#retire(listener);
        this.#listeners.delete(id);
      } else if (listener.shape !== shapeOf(channel) || listener.state.state === 'failed') {
        this.#retire(listener);
        binds.push(this.#listenerOf(id, channel));
      } else {
        listener.channel = channel;
      }
    }
    for (const [id, channel] of wanted) if (!this.#listeners.has(id)) binds.push(this.#listenerOf(id, channel));
    for (const listener of binds) this.#listeners.set(listener.id, listener);
    await Promise.all(binds.map((listener) => this.#bind(listener)));
  }

  #listenerOf(id: string, channel: ChannelRecord): Listener {
    const host = hostOf(channel);
    const port = channel.tcpPort ?? 0;
    return {
      id,
      shape: shapeOf(channel),
      protocol: listenerOf(channel) ?? 'tcp',
      host,
      port,
      channel,
      state: { state: 'starting', host, port, since: new Date().toISOString() },
      connections: new Set(),
      handshaking: new Map(),
      retired: false,
      label: `channel:${channel.name}`,
    };
  }

  #setState(listener: Listener, state: ChannelListener['state'], extra: { port?: number; error?: string } = {}): void {
    listener.state = { state, host: listener.host, port: extra.port ?? listener.port, ...(extra.error !== undefined ? { error: extra.error } : {}), since: new Date().toISOString() };
  }

  async #bind(listener: Listener): Promise<void> {
    const { logger } = this.#options;
    const log = { channel: listener.channel.name, protocol: listener.protocol, host: listener.host, port: listener.port };
    if (listener.channel.tcpPort === undefined || !Number.isInteger(listener.port) || listener.port < 1 || listener.port > 65_535) {
      this.#setState(listener, 'failed', { error: 'the channel has no port to listen on (tcpPort)' });
      logger.warn({ ...log, error: listener.state.error }, 'a channel listener could not start');
      return;
    }
    const server = this.#serverFor(listener);
    listener.server = server;
    const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve);
      server.listen({ host: listener.host, port: listener.port }, () => {
        server.off('error', resolve);
        resolve(undefined);
      });
    });
    if (failure !== undefined) {
      listener.server = undefined;
      const holder = [...this.#listeners.values()].find((l) => l !== listener && l.port === listener.port && l.state.state === 'listening');
      this.#setState(listener, 'failed', { error: bindFailure(failure, listener.host, listener.port, holder?.channel.name) });
      logger.warn({ ...log, code: failure.code, error: listener.state.error }, 'a channel listener could not start');
      return;
    }
    // An accept that fails (EMFILE) repeats per connection: logged once a window, never left to crash the process.
    server.on('error', (err: NodeJS.ErrnoException) => this.#admission.listenerError(listener.label, err));
    this.#setState(listener, 'listening', { port: (server.address() as AddressInfo).port });
    logger.info(log, 'channel listening');
    // Retired while binding (a stop or a newer change): let go at once.
    if (listener.retired) server.close();
  }

  #serverFor(listener: Listener): Server {
    const { logger } = this.#options;
    const limits = this.#limits;
    const admission = this.#admission;
    const { certificate, trustedCAs } = this.#tls;
    const secure = listener.protocol === 'tls';
    const server = secure
      ? createTlsServer({
          ...listenerContext(certificate, trustedCAs),
          // A presented certificate identifies the client; the message path judges unknown ones, as on the HTTPS port
          // (a registered client certificate need not chain to a CA).
          requestCert: true,
          rejectUnauthorized: false,
          handshakeTimeout: limits.handshakeTimeoutMs,
          allowHalfOpen: true,
        })
      : createNetServer({ allowHalfOpen: true });
    server.maxConnections = limits.maxConnectionsPerChannel;
    server.on('drop', (data?: { remoteAddress?: string }) => {
      admission.refused(listener.label, data?.remoteAddress, 'listener_full', { port: listener.port, limit: limits.maxConnectionsPerChannel, setting: 'tcp.maxConnectionsPerChannel' });
    });
    if (!secure) {
      server.on('connection', (socket: Socket) => {
        if (admission.admit(listener.label, socket, limits.maxConnectionsPerAddress)) this.#accept(listener, socket, false);
      });
      return server;
    }
    server.on('connection', (socket: Socket) => {
      if (!admission.admit(listener.label, socket, limits.maxConnectionsPerAddress)) return;
      const key = remoteKey(socket);
      listener.handshaking.set(key, socket);
      socket.once('close', () => {
        if (listener.handshaking.get(key) === socket) listener.handshaking.delete(key);
      });
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      listener.handshaking.delete(remoteKey(socket));
      this.#accept(listener, socket, true);
    });
    server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: TLSSocket) => {
      if (err.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') admission.refused(listener.label, socket.remoteAddress, 'handshake_timeout', { handshakeTimeoutMs: limits.handshakeTimeoutMs });
      else logger.info({ channel: listener.channel.name, peer: `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`, err: err.message, code: err.code }, 'TLS handshake failed');
      socket.destroy();
    });
    return server;
  }

  #accept(listener: Listener, socket: Socket, secure: boolean): void {
    const { handler } = this.#options;
    const limits = this.#limits;
    const logger = this.#options.logger.child({ channel: listener.channel.name, peer: `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}` });
    socket.on('error', () => {
      // SocketConnection logs errors; this one only keeps an error before it takes over from crashing the process.
    });
    if (listener.retired) {
      socket.destroy();
      return;
    }
    const certificate = secure ? peerCertificateOf(socket as TLSSocket) : undefined;
    if (secure && certificate === undefined && listener.channel.requireClientCertificate === true) {
      logger.info('closing a TLS connection without a client certificate: the channel requires one');
      // Nothing will be read from it, so nothing can wait: gone once the close is sent.
      socket.end(() => socket.destroy());
      socket.setTimeout(limits.idleTimeoutMs, () => socket.destroy());
      return;
    }
    const connection = new SocketConnection(socket, {
      channel: () => listener.channel,
      handler,
      framing: listener.channel.tcpFraming ?? 'auto',
      secure,
      ...(certificate !== undefined ? { certificate } : {}),
      maxMessageBytes: limits.maxMessageBytes,
      idleTimeoutMs: limits.idleTimeoutMs,
      silentTimeoutMs: limits.silentTimeoutMs,
      frameTimeoutMs: limits.frameTimeoutMs,
      deadline: (reason, fields) => this.#admission.refused(listener.label, socket.remoteAddress, reason, fields),
      logger,
    });
    listener.connections.add(connection);
    void connection.closed.then(() => {
      listener.connections.delete(connection);
      if (listener.retired && listener.connections.size === 0) this.#retiring.delete(listener);
    });
  }

  /** Takes a listener out of service: no new connections; what was read is answered, then the connections end. */
  #retire(listener: Listener): void {
    if (listener.retired) return;
    listener.retired = true;
    this.#setState(listener, 'stopped');
    if (listener.server?.listening === true) listener.server.close();
    for (const socket of listener.handshaking.values()) socket.destroy();
    listener.handshaking.clear();
    if (listener.connections.size === 0) return;
    this.#retiring.add(listener);
    for (const connection of listener.connections) connection.retire();
    const force = setTimeout(() => {
      for (const connection of listener.connections) connection.destroy();
    }, STOP_GRACE_MS);
    force.unref();
    void Promise.all([...listener.connections].map((c) => c.closed)).then(() => clearTimeout(force));
  }
}
