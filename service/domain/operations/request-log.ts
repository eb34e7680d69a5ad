/**
 * How loud one answered request of the management API is in Junction's own log. The console reads the API every few
 * seconds (lists, the needs-attention strip, metrics), and two info lines for each of those reads buried everything
 * else on the Logs page; a read that succeeded tells an administrator nothing, so it is kept at debug. Changes, refused
 * or bad requests and failures stay at info and above, where the Logs page shows them by default.
 */

export type RequestLogLevel = 'debug' | 'info' | 'error';

/** Methods that change nothing: a successful one is routine. */
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The level of the one line written when a request of the management API has been answered. */
export function requestLogLevel(method: string, statusCode: number): RequestLogLevel {
  if (statusCode >= 500) return 'error';
  if (statusCode >= 400) return 'info';
  return READS.has(method.toUpperCase()) ? 'debug' : 'info';
}

/**
 * The address as logged: a path that carries a secret in it (a set-password link's token) is logged as its route's
 * pattern, so a log reader cannot use a link that has not been spent yet.
 */
export function loggedUrl(url: string, routePattern: string | undefined): string {
  return routePattern !== undefined && routePattern.includes(':token') ? routePattern : url;
}
