/**
 * Sends Junction's own audit events to another audit repository (`auditEvents.interface` udp, tcp or tls). `add()`
 * writes the event's syslog message into the durable outbox and resolves once it is stored there; a single sender
 * drains the outbox oldest first: over TCP and TLS on one connection kept open and reused (OpenHIM opens one per
 * event), over UDP one datagram each. A repository that cannot be reached is retried with a wait doubling from 1 s
 * to `retryMaxSeconds` while events stay queued; one that accepts but stalls is cut off by the connect and write
 * timeouts. Syslog has no acknowledgements, so a message written just before the repository drops the connection can
 * be lost in its buffers; everything not yet handed to the socket stays queued.
 */
import { createSocket } from 'node:dgram';
import type { Socket as UdpSocket } from 'node:dgram';
import { isIP, isIPv6, connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { hostname as machineName } from 'node:os';
import { connect as tlsConnect, rootCertificates } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { AuditOutbox, QueuedAuditMessage } from '../storage/audit-outbox.js';
import type { AuditSink, NewAudit } from '../storage/audits.js';
import { MAX_UDP_BYTES, frameOctetCounted, syslogMessage } from './wire.js';

/** Timers the sender waits on; tests pass their own so backoff and timeouts need no real waiting. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's timers, unreferenced so a pending retry never keeps the process alive. */
export const realTimers: Timers = {
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

export interface ForwarderTls {
  /** Extra CAs trusted beside the system's (`tls.trustedCAFiles`). */
  trustedCAs: readonly string[];
  /** Junction's own certificate and key, presented as the client certificate. */
  cert: string;
  key: string;
  passphrase?: string;
}

export interface AuditForwarderOptions {
  transport: 'udp' | 'tcp' | 'tls';
  host: string;
  port: number;
  outbox: AuditOutbox;
  maxQueued: number;
  retryMaxSeconds: number;
  logger: Logger;
  /** Required for `tls`. */
  tls?: ForwarderTls;
  timers?: Timers;
  now?: () => Date;
  hostname?: string;
  connectTimeoutMs?: number;
  writeTimeoutMs?: number;
  /** How long a TLS 1.3 connection waits for the repository to accept the client certificate (see `#connect`). */
  tlsSettleMs?: number;
  /** Longest `stop()` spends sending what is queued before it leaves the rest for the next start. */
  stopTimeoutMs?: number;
}

/** What the forwarder has done since it started, for /about. */
export interface AuditForwarderStatus {
  interface: 'udp' | 'tcp' | 'tls';
  target: string;
  queued: number;
  sent: number;
  /** Dropped because the queue was full. */
  dropped: number;
  /** Dropped because they were too large for a UDP datagram. */
  tooLarge: number;
  /** Whether the last attempt to send failed (the repository is being retried). */
  retrying: boolean;
  /** Whether a TCP or TLS connection to the repository is open now. */
  connected: boolean;
}

const FIRST_RETRY_MS = 1000;
const BATCH = 100;

/** The audit sink that forwards to another repository; `start()` before the first `add()`. */
export class AuditForwarder implements AuditSink {
  #options: AuditForwarderOptions;
  readonly #timers: Timers;
  readonly #target: string;
  #loop: Promise<void> | undefined;
  /** Ends the idle wait or the retry wait early. */
  #wake: (() => void) | undefined;
  /** Set by `add`: an event was queued since the sender last began to read the outbox. */
  #added = false;
  #stopping = false;
  /** Set when the stop deadline passes: nothing more is sent. */
  #aborted = false;
  #retryMs = FIRST_RETRY_MS;
  #retrying = false;
  #socket: Socket | undefined;
  #udp: UdpSocket | undefined;
  #burstDropped = 0;
  #stopped: Promise<void> | undefined;
  /** Settles every connect, write or close in progress with an error: how the stop deadline cuts them short. */
  readonly #inFlight = new Set<(err: Error) => void>();
  readonly #counts = { sent: 0, dropped: 0, tooLarge: 0 };

  constructor(options: AuditForwarderOptions) {
    if (options.transport === 'tls' && options.tls === undefined) throw new Error('a TLS audit forwarder needs the certificate and trusted CAs');
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
    this.#target = `${options.transport}://${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
  }

  /** Presents a new certificate and checks the repository against a new CA list from the next connection on. */
  useTls(tls: ForwarderTls): void {
    if (this.#options.tls !== undefined) this.#options = { ...this.#options, tls };
  }

  /** Opens the outbox and starts sending what it holds (events an earlier run could not send go first). */
  async start(): Promise<void> {
    await this.#options.outbox.open();
    const queued = this.#options.outbox.size();
    if (queued > 0) this.#options.logger.info({ queued, target: this.#target }, 'sending the audit events queued before this start');
    this.#loop = this.#run().catch((err: unknown) => this.#options.logger.error({ err }, 'the audit event sender stopped'));
  }

  /** Queues one event; resolves once it is stored in the outbox (or was dropped as too large for UDP, logged). */
  async add(audit: NewAudit): Promise<void> {
    const { outbox, maxQueued, transport, logger } = this.#options;
    const message = syslogMessage(audit, { hostname: this.#options.hostname ?? machineName(), procId: process.pid, at: this.#options.now?.() ?? new Date() });
    if (transport === 'udp' && Buffer.byteLength(message, 'utf8') > MAX_UDP_BYTES) {
      this.#counts.tooLarge++;
      logger.warn({ bytes: Buffer.byteLength(message, 'utf8'), limit: MAX_UDP_BYTES, eventID: audit.eventIdentification.eventID?.code }, 'an audit event is too large for a UDP datagram and was dropped; use tcp or tls');
      return;
    }
    const dropped = await outbox.push(message, maxQueued);
    if (dropped > 0) this.#noteDropped(dropped);
    this.#added = true;
    this.#wake?.();
  }

  status(): AuditForwarderStatus {
    return { interface: this.#options.transport, target: this.#target, queued: this.#options.outbox.size(), ...this.#counts, retrying: this.#retrying, connected: this.#connected() };
  }

  #connected(): boolean {
    return this.#socket !== undefined && !this.#socket.destroyed && this.#socket.writable;
  }

  /**
   * Sends what is queued for up to `stopTimeoutMs` (not waiting out a retry), then closes the connection and the
   * outbox; what was not sent stays queued for the next start.
   */
  stop(): Promise<void> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<void> {
    this.#stopping = true;
    const deadline = this.#timers.setTimeout(() => this.#abort(), this.#options.stopTimeoutMs ?? 5000);
    this.#wake?.();
    await this.#loop;
    await this.#closeConnection();
    this.#timers.clearTimeout(deadline);
    this.#udp?.close();
    this.#udp = undefined;
    this.#endBurst();
    const left = this.#options.outbox.size();
    if (left > 0) this.#options.logger.warn({ queued: left, target: this.#target }, 'audit events not yet sent stay queued for the next start');
    await this.#options.outbox.close();
  }

  #abort(): void {
    this.#aborted = true;
    for (const cancel of [...this.#inFlight]) cancel(new Error(`stopped before ${this.#target} answered`));
    this.#socket?.destroy();
    this.#wake?.();
  }

  async #run(): Promise<void> {
    const { outbox, logger } = this.#options;
    while (!this.#aborted) {
      let batch: QueuedAuditMessage[];
      this.#added = false;
      try {
        batch = await outbox.peek(BATCH);
      } catch (err) {
        if (await this.#outboxFailed(err, 'read')) return;
        continue;
      }
      if (batch.length === 0) {
        if (this.#stopping) return;
        // An event queued while the read was under way was not in it, and its wake-up came before this wait.
        if (this.#added) continue;
        // A shared queue also holds other instances' messages (theirs, should one die): look again now and then.
        await this.#wait(outbox.recheckMs);
        continue;
      }
      for (const item of batch) {
        if (this.#aborted) return;
        try {
          await this.#send(item.message);
        } catch (err) {
          if (this.#aborted) return;
          this.#failed(err);
          // A stop does not wait out a retry: what is left goes at the next start.
          if (this.#stopping) return;
          await this.#wait(this.#retryMs);
          if (this.#stopping) return;
          this.#retryMs = Math.min(this.#retryMs * 2, this.#options.retryMaxSeconds * 1000);
          break;
        }
        this.#counts.sent++;
        try {
          await outbox.removeThrough(item.seq);
        } catch (err) {
          if (await this.#outboxFailed(err, 'update')) return;
          break;
        }
        if (this.#retrying) logger.info({ queued: outbox.size(), target: this.#target }, 'the audit repository is reachable again; sending the queued audit events');
        this.#retrying = false;
        this.#retryMs = FIRST_RETRY_MS;
        this.#endBurst();
      }
    }
  }

  /**
   * The outbox could not be read or updated (a shared database out of reach): waits as for a repository that is
   * down, then the loop tries again; true when stopping, so the loop ends. A message sent but not yet removed may
   * then go twice: the price of never losing one.
   */
  async #outboxFailed(err: unknown, what: 'read' | 'update'): Promise<boolean> {
    this.#options.logger.warn({ err, retryInSeconds: this.#retryMs / 1000 }, `cannot ${what} the audit outbox; the sender tries again`);
    if (this.#stopping) return true;
    await this.#wait(this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, this.#options.retryMaxSeconds * 1000);
    return this.#stopping;
  }

  #failed(err: unknown): void {
    const details = { err, target: this.#target, queued: this.#options.outbox.size(), retryInSeconds: this.#retryMs / 1000 };
    // Warned once per outage; each further attempt is only debug, so a long outage does not flood the log.
    if (!this.#retrying) this.#options.logger.warn(details, 'cannot send audit events to the audit repository; they stay queued and are retried');
    else this.#options.logger.debug(details, 'the audit repository is still unreachable');
    this.#retrying = true;
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  /** Resolves after `ms` (or, without `ms`, when an event is added), or at once when stopping. */
  #wait(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : this.#timers.setTimeout(() => done(), ms);
      const done = () => {
        if (timer !== undefined) this.#timers.clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      this.#wake = done;
    });
  }

  #send(message: string): Promise<void> {
    return this.#options.transport === 'udp' ? this.#sendDatagram(message) : this.#sendFramed(message);
  }

  async #sendFramed(message: string): Promise<void> {
    const socket = this.#socket !== undefined && this.#connected() ? this.#socket : await this.#connect();
    await this.#bounded(`writing to ${this.#target}`, this.#options.writeTimeoutMs ?? 10_000, (settle) => {
      const onClose = () => settle(new Error(`the audit repository ${this.#target} closed the connection`));
      socket.once('close', onClose);
      socket.write(frameOctetCounted(message), (err) => {
        socket.off('close', onClose);
        settle(err ?? undefined);
      });
      return () => socket.destroy();
    });
  }

  #connect(): Promise<Socket> {
    const { host, port, transport, tls } = this.#options;
    this.#socket?.destroy();
    this.#socket = undefined;
    const socket =
      transport === 'tls' && tls !== undefined
        ? tlsConnect({
            host,
            port,
            // SNI only takes a name; an address is still checked against the certificate's IP entries.
            ...(isIP(host) === 0 ? { servername: host } : {}),
            ca: [...rootCertificates, ...tls.trustedCAs],
            cert: tls.cert,
            key: tls.key,
            ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
            rejectUnauthorized: true,
          })
        : netConnect({ host, port });
    // Errors surface through the connect and write promises; this keeps a late one from crashing the process.
    socket.on('error', () => undefined);
    // A repository has nothing to say; whatever it sends is read and ignored so it cannot fill a buffer.
    socket.on('data', () => undefined);
    let ticket = false;
    socket.once('session', () => (ticket = true));
    return this.#bounded(`connecting to ${this.#target}`, this.#options.connectTimeoutMs ?? 10_000, (settle) => {
      const onError = (err: Error) => settle(err);
      const onClose = () => settle(new Error(`the audit repository ${this.#target} closed the connection`));
      socket.once('error', onError);
      socket.once('close', onClose);
      const ready = () => {
        socket.off('error', onError);
        socket.off('close', onClose);
        this.#socket = socket;
        settle(undefined);
      };
      socket.once(transport === 'tls' ? 'secureConnect' : 'connect', () => {
        // In TLS 1.3 the client's handshake ends before the repository has checked its certificate; a refusal then
        // comes as an alert that would silently swallow the first event. A session ticket is sent only after the
        // check, so wait for one (or the refusal), for a short while: some servers send no tickets.
        if (transport !== 'tls' || ticket || (socket as TLSSocket).getProtocol() !== 'TLSv1.3') return ready();
        const settleTimer = this.#timers.setTimeout(ready, this.#options.tlsSettleMs ?? 1000);
        socket.once('session', () => {
          this.#timers.clearTimeout(settleTimer);
          // The event comes from inside OpenSSL's read of the ticket; writing before that read returns stalls the
          // connection, so the first write waits for the next turn.
          setImmediate(() => {
            if (!socket.destroyed) ready();
          });
        });
        socket.once('close', () => this.#timers.clearTimeout(settleTimer));
      });
      return () => socket.destroy();
    }).then(() => socket);
  }

  #sendDatagram(message: string): Promise<void> {
    const { host, port } = this.#options;
    if (this.#udp === undefined) {
      this.#udp = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
      this.#udp.on('error', (err) => this.#options.logger.debug({ err }, 'audit UDP socket error'));
    }
    const udp = this.#udp;
    return this.#bounded(`sending to ${this.#target}`, this.#options.writeTimeoutMs ?? 10_000, (settle) => {
      udp.send(Buffer.from(message, 'utf8'), port, host, (err) => settle(err ?? undefined));
      return () => undefined;
    });
  }

  /**
   * Runs `start`, which calls `settle` once; rejects if it has not within `ms` (calling the cleanup `start` returned)
   * or when the stop deadline passes, so no send or connect waits forever.
   */
  #bounded(what: string, ms: number, start: (settle: (err: Error | undefined) => void) => () => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (err: Error | undefined) => {
        if (settled) return;
        settled = true;
        this.#inFlight.delete(settle);
        this.#timers.clearTimeout(timer);
        if (err === undefined) resolve();
        else {
          cleanup();
          reject(err);
        }
      };
      const timer = this.#timers.setTimeout(() => settle(new Error(`${what}: no progress within ${ms} ms`)), ms);
      this.#inFlight.add(settle);
      let cleanup: () => void = () => undefined;
      cleanup = start(settle);
    });
  }

  /** Ends the connection after what was written has gone, or cuts it when the repository does not read it. */
  async #closeConnection(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket === undefined || socket.destroyed) return;
    await this.#bounded(`closing ${this.#target}`, 2000, (settle) => {
      socket.once('close', () => settle(undefined));
      socket.end();
      return () => socket.destroy();
    }).catch(() => undefined);
  }

  #noteDropped(count: number): void {
    if (this.#burstDropped === 0) {
      this.#options.logger.warn({ maxQueued: this.#options.maxQueued, target: this.#target }, 'the audit event queue is full: the oldest events are being dropped');
    }
    this.#burstDropped += count;
    this.#counts.dropped += count;
  }

  /** Says how many a burst of drops cost, once, when it ends (a send got through, or the sender stops). */
  #endBurst(): void {
    if (this.#burstDropped === 0) return;
    this.#options.logger.warn({ dropped: this.#burstDropped, maxQueued: this.#options.maxQueued, target: this.#target }, `dropped ${this.#burstDropped} audit events while the queue was full`);
    this.#burstDropped = 0;
  }
}
