/**
 * CORS for a console served from another origin (setting `api.corsOrigins`). With no origins named nothing is
 * registered: no CORS headers at all, so browsers keep the API to pages of its own origin.
 *
 * With origins named, the session cookie has to be `SameSite=None` for those consoles to sign in, which means a
 * browser also sends it on requests started by any other site. Preflights keep other sites from sending JSON or
 * custom headers, but a simple request (such as a form post with an empty body) needs no preflight: origin-check.ts
 * refuses those, with or without origins named here.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Methods the API answers; preflights allow exactly these. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Request headers a console may send: JSON bodies, Basic credentials and OpenHIM's token-scheme headers. */
const HEADERS = ['content-type', 'authorization', 'auth-username', 'auth-ts', 'auth-salt', 'auth-token', 'x-requested-with'];

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/** Registers CORS for the named origins (exact text, as validated by the config); does nothing for none. */
export async function installCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const allowed: ReadonlySet<string> = new Set(origins);
  // A function rather than the list: with a list, @fastify/cors still answers other origins' preflights with the
  // allowed methods and headers (only the Allow-Origin header is left out).
  const originOf = (origin: string | undefined): string | false => (origin !== undefined && allowed.has(origin) ? origin : false);
  await app.register(cors, {
    origin: (origin, callback) => {
      callback(null, originOf(origin));
    },
    credentials: true,
    methods: METHODS,
    allowedHeaders: HEADERS,
    // The metrics routes say which zone their buckets were cut in; a console on another origin reads it too.
    exposedHeaders: ['metrics-time-zone'],
    maxAge: PREFLIGHT_MAX_AGE,
    hideOptionsRoute: true,
  });
}
