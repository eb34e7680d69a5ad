/**
 * What the MLLP and TCP routes share: opening a plain or TLS socket to a route's host and port (TLS verified against
 * the system's CAs and the configured ones, SNI when the host is a name, TLS 1.2 at least), the call they take, and
 * the words their failures are reported in, so an administrator reading a transaction knows which upstream did what.
 */
import { connect as connectPlain, isIP } from 'node:net';
import type { Socket } from 'node:net';
import { connect as connectTls, rootCertificates } from 'node:tls';
import { RouteError } from './http.js';
import type { RouteTarget } from './http.js';

/** One exchange with an MLLP or TCP route. */
export interface SocketRouteCall {
  /** Host, port, and `secured` for TLS. */
  target: RouteTarget;
  /** The message, unframed. */
  message: Buffer;
  /** The whole exchange (waiting for a connection, connecting, writing, reading the reply) must finish within it. */
  timeoutMs: number;
  /** Aborts the exchange (the transaction's stall watchdog). */
  signal?: AbortSignal;
  /**
   * Says why a reply cannot be this message's answer (an ACK of another message: the connection is out of step), or
   * undefined when it may be. A refused reply fails the exchange and its connection is not reused.
   */
  check?: (reply: Buffer) => string | undefined;
}

/** What an `mllp` or `tcp` route sender does (MllpRouter, TcpRouter): one message out, one reply back. */
export interface SocketSender {
  send(call: SocketRouteCall): Promise<Buffer>;
}

/** The CA list for secured routes: undefined keeps Node's default (which honours NODE_EXTRA_CA_CERTS) when nothing is added. */
export function caListOf(trustedCAs: readonly string[] | undefined): string[] | undefined {
  return trustedCAs === undefined || trustedCAs.length === 0 ? undefined : [...rootCertificates, ...trustedCAs];
}

/** How messages name an upstream: `MLLP upstream host:port (TLS)`. */
export function upstreamLabel(kind: 'MLLP' | 'TCP', target: RouteTarget): string {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return `${kind} upstream ${host}:${target.port}${target.secured ? ' (TLS)' : ''}`;
}

/**
 * Starts connecting; data written before the connection is up waits in the socket. Errors arrive as the socket's
 * 'error' event; `readyEvent` says which event means the connection (and for TLS, the verified handshake) is up.
 */
export function openSocket(target: RouteTarget, ca: string[] | undefined): Socket {
  const socket = target.secured
    ? connectTls({
        host: target.host,
        port: target.port,
        ca,
        // SNI carries names only; Node refuses (and warns about) an IP address as a server name.
        servername: isIP(target.host) === 0 ? target.host : undefined,
        minVersion: 'TLSv1.2',
        rejectUnauthorized: true,
      })
    : connectPlain({ host: target.host, port: target.port });
  socket.setNoDelay(true);
  return socket;
}

/** The event after which the socket carries data. */
export function readyEvent(target: RouteTarget): 'connect' | 'secureConnect' {
  return target.secured ? 'secureConnect' : 'connect';
}

const CERTIFICATE_PROBLEM = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS_/;

/** A socket error as a RouteError naming the upstream and the stage it happened at. */
export function socketFailure(err: Error & { code?: string }, label: string, connected: boolean, received: number): RouteError {
  if (!connected) {
    if (typeof err.code === 'string' && CERTIFICATE_PROBLEM.test(err.code)) {
      return new RouteError('connection', `${label} presented a TLS certificate that is not trusted (${err.message}); add its CA to tls.trustedCAFiles or correct the certificate`, { cause: err });
    }
    return new RouteError('connection', `${label} could not be reached: ${err.message}`, { cause: err });
  }
  if (received > 0) return new RouteError('connection', `${label} broke off in the middle of its reply after ${received} bytes: ${err.message}`, { cause: err });
  return new RouteError('connection', `${label} failed before replying: ${err.message}`, { cause: err });
}

/** The error for an exchange that ran out of time, saying how far it got. */
export function timeoutFailure(label: string, timeoutMs: number, stage: 'queued' | 'connecting' | 'replying', received: number): RouteError {
  const what =
    stage === 'queued'
      ? `no connection to it became free within ${timeoutMs} ms (all pooled connections were busy)`
      : stage === 'connecting'
        ? `the connection was not established within ${timeoutMs} ms`
        : received > 0
          ? `its reply was not complete within ${timeoutMs} ms (${received} bytes received)`
          : `it did not reply within ${timeoutMs} ms`;
  return new RouteError('timeout', `${label}: ${what}`);
}

/** The error for an exchange the caller aborted. */
export function abortFailure(label: string, signal: AbortSignal): RouteError {
  const reason: unknown = signal.reason;
  const why = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
  return new RouteError('connection', `the exchange with ${label} was abandoned: ${why}`, { cause: reason });
}
