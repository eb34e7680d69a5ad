/**
 * Connection admission, shared by every inbound listener (transaction ports, tcp and tls channels, the management
 * API, the audit listeners): per-address counts per listener, one process-wide count, and the refusals they cause,
 * logged once per listener, address and reason per window (never per connection, so a flood cannot flood the log)
 * and counted in Prometheus. `guardHttpServer` adds what an HTTP server needs on top: the deadline for a request head.
 */
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import type { OpenMetricsContentType, PrometheusContentType, Registry } from 'prom-client';
import { addressKey, admissionOf, shouldLogRefusal } from '../domain/access/admission.js';
import { errorBody } from '../errors.js';
import type { RefusalReason } from '../domain/access/admission.js';

export interface AdmissionOptions {
  /** Connections one address may hold on one listener, unless the listener names its own limit. */
  perAddress: number;
  /** Inbound connections the whole process may hold. */
  total: number;
  logger: Logger;
  /** Where the refusal counter is registered (the instance's Prometheus registry); none in some tests. */
  registry?: Registry<OpenMetricsContentType> | Registry<PrometheusContentType>;
  /** A refusal of one kind from one address on one listener is logged at most once per this window. */
  logWindowMs?: number;
  now?: () => number;
  /** Where each refusal is recorded as well (the refusal recorder, issue 35): called synchronously, must not throw. */
  record?: (listener: string, address: string | undefined, reason: RefusalReason, fields: Record<string, unknown>) => void;
}

const DEFAULT_LOG_WINDOW_MS = 60_000;
const REFUSALS_METRIC = 'junction_inbound_refusals_total';
/** Past this many remembered log keys, those whose window has passed are forgotten. */
const MAX_LOG_KEYS = 10_000;
/** After a 408, how long a sender gets to read it before the socket is destroyed. */
const CLOSE_GRACE_MS = 1_000;

const MESSAGES: Record<RefusalReason, string> = {
  per_address: 'refused a connection: this address already holds as many connections on this listener as allowed',
  total: 'refused a connection: the service holds as many connections as connections.maxTotal allows',
  listener_full: 'refused a connection: the listener holds as many connections as it allows',
  silent: 'closed a connection that sent nothing in time',
  head_timeout: 'closed a connection whose request head did not arrive in time (408)',
  frame_timeout: 'closed a connection whose message did not arrive whole in time',
  handshake_timeout: 'closed a connection whose TLS handshake did not finish in time',
  not_hl7: 'refused an MLLP frame that is not HL7 v2 (no MSH segment): answered AR, not forwarded or stored',
  too_large: 'closed a connection whose message is longer than tcp.maxMessageBytes allows',
  bad_frame: 'closed a connection whose framing could not be read',
};

interface LogState {
  at: number;
  /** Refusals since the last line. */
  since: number;
}

/** The admission of one Junction instance. */
export class Admission {
  readonly #options: AdmissionOptions;
  readonly #window: number;
  readonly #now: () => number;
  /** `listener \0 address` → connections open. */
  readonly #open = new Map<string, number>();
  #total = 0;
  readonly #logged = new Map<string, LogState>();
  readonly #counter: Counter<'listener' | 'reason'> | undefined;

  constructor(options: AdmissionOptions) {
    this.#options = options;
    this.#window = options.logWindowMs ?? DEFAULT_LOG_WINDOW_MS;
    this.#now = options.now ?? Date.now;
    // A second admission on the same registry (an instance started again) counts on in the same counter.
    const existing = options.registry?.getSingleMetric(REFUSALS_METRIC) as Counter<'listener' | 'reason'> | undefined;
    this.#counter =
      options.registry === undefined
        ? undefined
        : existing ?? new Counter({
            name: REFUSALS_METRIC,
            help: 'Inbound connections refused by a connection limit or closed by a connection deadline, and MLLP frames refused, by listener and reason',
            labelNames: ['listener', 'reason'],
            registers: [options.registry],
          });
  }

  /** Inbound connections open now, over every listener. */
  get total(): number {
    return this.#total;
  }

  /** The process-wide cap in force. */
  get limit(): number {
    return this.#options.total;
  }

  /** Connections `address` holds on `listener` now. */
  openFrom(listener: string, address: string): number {
    return this.#open.get(`${listener}\0${addressKey(address)}`) ?? 0;
  }

  /**
   * Counts a new connection, or refuses it (destroyed, logged, counted). Call first thing on `connection`; the count
   * drops when the socket closes.
   */
  admit(listener: string, socket: Socket, perAddress = this.#options.perAddress): boolean {
    const address = addressKey(socket.remoteAddress);
    const key = `${listener}\0${address}`;
    const fromAddress = this.#open.get(key) ?? 0;
    const decision = admissionOf({ fromAddress, total: this.#total }, { perAddress, total: this.#options.total });
    if (decision !== 'admit') {
      socket.destroy();
      this.refused(listener, address, decision, decision === 'total' ? { limit: this.#options.total } : { limit: perAddress });
      return false;
    }
    this.#open.set(key, fromAddress + 1);
    this.#total++;
    socket.once('close', () => {
      this.#total--;
      const left = (this.#open.get(key) ?? 1) - 1;
      if (left <= 0) this.#open.delete(key);
      else this.#open.set(key, left);
    });
    return true;
  }

  /** Counts a refusal or a deadline's close, and logs it unless this listener, address and reason logged within the window. */
  refused(listener: string, address: string | undefined, reason: RefusalReason, fields: Record<string, unknown> = {}): void {
    this.#counter?.inc({ listener, reason });
    this.#options.record?.(listener, address, reason, fields);
    const peer = addressKey(address);
    const key = `${listener}|${peer}|${reason}`;
    const now = this.#now();
    const state = this.#logged.get(key);
    if (!shouldLogRefusal(state?.at, now, this.#window)) {
      (state as LogState).since++;
      return;
    }
    this.#forgetOld(now);
    // `refused` counts this one and those not logged since the last line for the same key.
    this.#options.logger.warn({ listener, peer, reason, refused: (state?.since ?? 0) + 1, ...fields }, MESSAGES[reason]);
    this.#logged.set(key, { at: now, since: 0 });
  }

  /** Logs a listener's own error (such as EMFILE on accept) once per window instead of letting it crash the process. */
  listenerError(listener: string, err: NodeJS.ErrnoException): void {
    const key = `${listener}|error|${err.code ?? err.message}`;
    const now = this.#now();
    const state = this.#logged.get(key);
    if (!shouldLogRefusal(state?.at, now, this.#window)) {
      (state as LogState).since++;
      return;
    }
    this.#forgetOld(now);
    this.#options.logger.error({ listener, code: err.code, err: err.message, times: (state?.since ?? 0) + 1, open: this.#total }, 'a listener failed to accept a connection');
    this.#logged.set(key, { at: now, since: 0 });
  }

  #forgetOld(now: number): void {
    if (this.#logged.size < MAX_LOG_KEYS) return;
    for (const [key, state] of this.#logged) if (now - state.at >= this.#window) this.#logged.delete(key);
  }
}

export interface HttpGuardOptions {
  admission: Admission;
  listener: string;
  perAddress?: number;
  /** From the connection (or the end of the previous response) to a whole request head. */
  headTimeoutMs: number;
  /** TLS: the head deadline starts once the handshake is done (the handshake has its own timeout). */
  secure: boolean;
}

/** The 408 in the service's one error shape, as the API answers a request that stalls after its head. */
function requestTimeout(headTimeoutMs: number): string {
  const body = JSON.stringify(errorBody('REQUEST_TIMEOUT', `The request head did not arrive within ${String(headTimeoutMs / 1000)} s`, { headTimeoutMs }));
  return `HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json; charset=utf-8\r\nconnection: close\r\ncontent-length: ${String(Buffer.byteLength(body))}\r\n\r\n${body}`;
}

/**
 * Guards an HTTP or HTTPS server: admission on every connection, and one deadline per request head (armed when the
 * connection opens or a response ends, cleared when the next request's head is whole), so a socket that never sends,
 * an idle TLS session and a sender trickling its headers all end with a 408, at one timer per request, none per byte.
 * Node's own `headersTimeout` is checked only every 30 s and not for every connection state, hence this.
 */
export function guardHttpServer(server: HttpServer, options: HttpGuardOptions): void {
  const { admission, listener, headTimeoutMs } = options;
  const timedOut = requestTimeout(headTimeoutMs);
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  const expire = (socket: Socket) => {
    timers.delete(socket);
    if (socket.destroyed) return;
    admission.refused(listener, socket.remoteAddress, 'head_timeout', { headTimeoutMs });
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(timedOut);
    const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
  const arm = (socket: Socket) => {
    if (socket.destroyed) return;
    const timer = setTimeout(expire, headTimeoutMs, socket);
    timer.unref();
    timers.set(socket, timer);
  };
  const disarm = (socket: Socket) => {
    const timer = timers.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    timers.delete(socket);
  };
  server.on('connection', (socket: Socket) => {
    if (!admission.admit(listener, socket, options.perAddress)) return;
    if (!options.secure) arm(socket);
    socket.once('close', () => disarm(socket));
  });
  // Once bound, an error is a failed accept (EMFILE), repeated per connection; before, it is the caller's bind failure.
  server.once('listening', () => server.on('error', (err: NodeJS.ErrnoException) => admission.listenerError(listener, err)));
  if (options.secure) {
    server.on('secureConnection', (socket: Socket) => {
      arm(socket);
      socket.once('close', () => disarm(socket));
    });
    server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (err.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') admission.refused(listener, socket.remoteAddress, 'handshake_timeout');
      socket.destroy();
    });
  }
  // Requests answered in parallel on one connection (pipelining): the next head's deadline starts after the last.
  const inFlight = new WeakMap<Socket, number>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    disarm(socket);
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    // The next head on a kept-alive connection gets a deadline of its own.
    res.once('finish', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (left === 0 && !socket.destroyed && !timers.has(socket)) arm(socket);
    });
  });
}
