/**
 * The management API's guard against requests other sites' pages make a browser send with the user's credentials
 * (cross-site request forgery). The origin check runs first on every request, before authentication, so such a
 * request changes nothing and costs no password check; a POST without a JSON body or the console's header is refused
 * once the caller is known. The decisions are domain/access/request-origin.ts's; this logs each refusal (once a
 * minute per page and kind, so a hostile page cannot flood the log) and answers it in the one error shape.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { CONSOLE_MARKER_HEADER, crossSiteRefusal, unmarkedPostRefusal } from '../domain/access/request-origin.js';
import type { RequestHeaders } from '../domain/access/request-origin.js';

const LOG_EVERY_MS = 60_000;
const LOG_KEYS_MAX = 1000;

/** Logs a refusal once per key a minute. */
export function refusalLog(log: FastifyBaseLogger, now: () => number = Date.now): (key: string, fields: Record<string, unknown>, message: string) => void {
  const logged = new Map<string, number>();
  return (key, fields, message) => {
    const at = now();
    if ((logged.get(key) ?? 0) > at) return;
    if (logged.size >= LOG_KEYS_MAX) logged.clear();
    logged.set(key, at + LOG_EVERY_MS);
    log.warn(fields, message);
  };
}

/** Installs the check; `corsOrigins` are the consoles served elsewhere (`api.corsOrigins`), trusted as this server is. */
export function installOriginCheck(app: FastifyInstance, corsOrigins: readonly string[]): void {
  const allowed: ReadonlySet<string> = new Set(corsOrigins);
  const warn = refusalLog(app.log);
  app.addHook('onRequest', async (request) => {
    const headers = request.headers as RequestHeaders;
    const crossSite = crossSiteRefusal(request.method, headers, allowed);
    if (crossSite !== null) {
      warn(`origin\0${String(request.headers.origin)}`, { origin: request.headers.origin, method: request.method, url: request.url, address: request.ip }, `refused a ${request.method} from ${crossSite}`);
      throw new AppError('CROSS_ORIGIN_REFUSED', `Requests that change something are not accepted from ${crossSite}: only from this server's own pages and the consoles named in api.corsOrigins (add the console's origin there if one is served elsewhere)`, { origin: request.headers.origin ?? null });
    }
  });
  // After authentication (a hook of a later stage), so a caller without credentials still learns only that.
  app.addHook('preValidation', async (request) => {
    const unmarked = unmarkedPostRefusal(request.method, request.headers);
    if (unmarked !== null) {
      warn(`post\0${request.ip}`, { method: request.method, url: request.url, address: request.ip, contentType: request.headers['content-type'] }, `refused ${unmarked} and no ${CONSOLE_MARKER_HEADER} header`);
      throw new AppError('REQUEST_MARKER_REQUIRED', `${unmarked.charAt(0).toUpperCase()}${unmarked.slice(1)} must carry the header X-Requested-With (any value) or a JSON body (Content-Type: application/json, such as {})`);
    }
  });
}
