/**
 * "Check routes" (issue 36): opens a connection to each route of a channel, with the TLS handshake for secured
 * ones under the same trust as real sends (the system's CAs and the keystore's trusted CAs, SNI for names), and
 * closes it again without sending a byte of a message. Each check ends within its timeout, whatever the upstream does.
 */
import type { Socket } from 'node:net';
import type { ChannelRoute, RouteCheckResult, RouteType } from '../contracts/channels.js';
import { checkFailure, checkSuccess } from '../domain/channels/route-check.js';
import type { CheckStage } from '../domain/channels/route-check.js';
import { caListOf, openSocket, readyEvent } from './socket-connect.js';
import type { RouteTarget } from './http.js';

export interface RouteCheckOptions {
  /** Extra CA certificates (PEM) trusted for secured routes, as the route senders trust them. */
  trustedCAs: readonly string[];
  /** How long each connection and handshake may take (`router.routeCheckTimeoutMs`). */
  timeoutMs: number;
}

/** How a route's address is written in the check's answer, by route kind. */
const SCHEMES = {
  http: (secured) => (secured ? 'https' : 'http'),
  mllp: () => 'mllp',
  tcp: () => 'tcp',
} as const satisfies Record<RouteType, (secured: boolean) => string>;

function hostPort(target: RouteTarget): string {
  return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}

function targetLabel(route: Pick<ChannelRoute, 'type' | 'host' | 'port' | 'secured'>): string {
  const scheme = SCHEMES[route.type](route.secured);
  const tls = route.secured && route.type !== 'http' ? ' (TLS)' : '';
  return `${scheme}://${hostPort(route)}${tls}`;
}

type Probe = { ok: true } | { ok: false; code?: string; message: string; stage: CheckStage; timedOut: boolean };

/** Connects (and shakes hands) once; resolves, never rejects, within the timeout. */
function probe(target: RouteTarget, options: RouteCheckOptions): Promise<Probe> {
  return new Promise((resolve) => {
    let socket: Socket;
    let connected = false;
    let settled = false;
    const finish = (result: Probe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
      // A polite close once reached (TLS close_notify, FIN); torn down at once after a failure or if it lingers.
      if (result.ok) {
        socket.end();
        setTimeout(() => socket.destroy(), options.timeoutMs).unref();
      } else {
        socket.destroy();
      }
    };
    const timer = setTimeout(() => finish({ ok: false, message: 'timed out', stage: connected && target.secured ? 'handshake' : 'connecting', timedOut: true }), options.timeoutMs);
    try {
      socket = openSocket(target, caListOf(options.trustedCAs));
    } catch (err) {
      // An invalid host or port is thrown at once rather than emitted.
      clearTimeout(timer);
      resolve({ ok: false, message: (err as Error).message, stage: 'connecting', timedOut: false, ...codeOf(err) });
      return;
    }
    // Errors after the answer (the upstream resetting as it is closed) are nobody's concern.
    socket.on('error', (err: Error & { code?: string }) => finish({ ok: false, message: err.message, stage: connected && target.secured ? 'handshake' : 'connecting', timedOut: false, ...codeOf(err) }));
    socket.once('connect', () => {
      connected = true;
    });
    socket.once(readyEvent(target), () => finish({ ok: true }));
    // A TLS upstream that closes without an error before the handshake ends is a failed handshake too.
    socket.once('close', () => finish({ ok: false, message: 'the connection closed before it was ready', stage: connected && target.secured ? 'handshake' : 'connecting', timedOut: false, code: 'ECONNRESET' }));
  });
}

function codeOf(err: unknown): { code?: string } {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? { code } : {};
}

/** Checks one route: connected (and its certificate trusted), or why not, in words. */
export async function checkRoute(route: Pick<ChannelRoute, 'name' | 'type' | 'host' | 'port' | 'secured' | 'status'>, options: RouteCheckOptions): Promise<RouteCheckResult> {
  const target = { host: route.host, port: route.port, secured: route.secured };
  const started = performance.now();
  const result = await probe(target, options);
  const ms = Math.round(performance.now() - started);
  const base = { name: route.name, type: route.type, target: targetLabel(route), enabled: route.status !== 'disabled', ms };
  if (result.ok) return { ...base, outcome: 'ok', message: checkSuccess(route.secured) };
  return { ...base, ...checkFailure(hostPort(target), result, options.timeoutMs) };
}

/** Checks every route of a channel at once (each within the timeout), in the channel's order. */
export function checkRoutes(routes: readonly Pick<ChannelRoute, 'name' | 'type' | 'host' | 'port' | 'secured' | 'status'>[], options: RouteCheckOptions): Promise<RouteCheckResult[]> {
  return Promise.all(routes.map((route) => checkRoute(route, options)));
}
