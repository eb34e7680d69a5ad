/**
 * "Check routes" in words (issue 36): what a failed connection or TLS handshake to a route means to the person who
 * asked, decided from the socket error's code. Pure: routing/route-check.ts makes the connection.
 */
import type { RouteCheckOutcome } from '../../contracts/channels.js';

/** Where the check got to: the TCP connection, or the TLS handshake on top of it. */
export type CheckStage = 'connecting' | 'handshake';

/** What a failed check found. */
export interface CheckFailure {
  /** The socket error's code (`ECONNREFUSED`, `DEPTH_ZERO_SELF_SIGNED_CERT`…); undefined for a timeout. */
  code?: string;
  /** The socket error's own message. */
  message: string;
  stage: CheckStage;
  timedOut: boolean;
}

const CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT/;

/** The outcome and its words for a failed check of `target` (`host:port`). */
export function checkFailure(target: string, failure: CheckFailure, timeoutMs: number): { outcome: RouteCheckOutcome; message: string } {
  const code = failure.code ?? '';
  if (failure.timedOut) {
    const what = failure.stage === 'handshake' ? 'the TLS handshake did not finish' : 'no connection';
    return { outcome: 'timeout', message: `timed out: ${what} within ${timeoutMs} ms (the host may be off, or a firewall drops the connection)` };
  }
  if (code === 'ECONNREFUSED') return { outcome: 'refused', message: `connection refused: nothing is listening on ${target} (is the receiving system running, and is the port right?)` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME') {
    return { outcome: 'dns', message: `the host name could not be found (DNS): ${failure.message}` };
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL') return { outcome: 'unreachable', message: `the host cannot be reached from here: ${failure.message}` };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return { outcome: 'certificate', message: `the TLS certificate is not for this host name: ${failure.message}; use the name the certificate gives, or correct the certificate` };
  }
  if (CERTIFICATE.test(code)) {
    return { outcome: 'certificate', message: `the TLS certificate is not trusted (${failure.message}); add its CA on the Certificates page (trusted CAs), or correct the certificate` };
  }
  if (failure.stage === 'handshake') {
    const reset = code === 'ECONNRESET' || code === 'EPIPE';
    return { outcome: 'tls', message: `the TLS handshake failed${reset ? ': the upstream closed the connection (does it speak TLS on this port?)' : `: ${failure.message}`}` };
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') return { outcome: 'reset', message: `the connection was reset: ${failure.message}` };
  return { outcome: 'other', message: failure.message === '' ? 'the connection failed' : failure.message };
}

/** The words of a check that reached its route. */
export function checkSuccess(secured: boolean): string {
  return secured ? 'connected; the TLS handshake succeeded and the certificate is trusted' : 'connected';
}
