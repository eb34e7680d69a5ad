/**
 * The management API's authentication gate: runs before validation on every route, so an unauthenticated caller
 * learns nothing about the request shape. Routes opt out with `config.public`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { ApiAuthenticationType } from '../../contracts/api.js';
import { parseBasicAuthorization } from '../../domain/codecs/basic-credentials.js';
import { isBrowserRequest } from '../../domain/access/request-origin.js';
import type { SessionRecord, UserRecord } from '../../storage/records.js';
import type { Authenticator } from './authenticator.js';

export const SESSION_COOKIE = 'junction.sid';

export interface AuthContext {
  user: UserRecord;
  method: 'session' | 'basic' | 'token';
  session?: SessionRecord;
  sessionToken?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** No credentials needed. */
    public?: boolean;
    /** No credentials needed for the requests this picks (the Prometheus scrape of `GET /metrics`, when made public). */
    publicWhen?: (request: FastifyRequest) => boolean;
    /** Credentials are used when present, but not required. */
    optionalAuth?: boolean;
    /** Reachable while the user must still change the first-run password. */
    duringPasswordChange?: boolean;
    /**
     * Reachable with a session this instance checked in the last few minutes while the database does not answer
     * (the needs-attention list, which then says so); every other route answers 503 until the database is back.
     */
    duringStoreOutage?: boolean;
  }
}

export interface AuthHookOptions {
  authenticator: Authenticator;
  types: readonly ApiAuthenticationType[];
}

/**
 * The Basic challenge for a 401, for scripts and mediators only. A browser is never challenged (isBrowserRequest):
 * it would open its own password dialog over the console's sign-in form, then cache what was typed and send it with
 * every request to this server, including those other sites' pages start.
 */
function basicChallenge(types: readonly ApiAuthenticationType[], request: FastifyRequest): Record<string, string> {
  if (isBrowserRequest(request.headers)) return {};
  return types.includes('basic') ? { 'www-authenticate': 'Basic realm="Junction", charset="UTF-8"' } : {};
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function identify(request: FastifyRequest, options: AuthHookOptions): Promise<AuthContext | null> {
  const { authenticator, types } = options;
  const address = request.ip;
  const authorization = header(request, 'authorization');
  if (authorization !== undefined && /^basic\s/i.test(authorization)) {
    if (!types.includes('basic')) throw new AppError('AUTH_TYPE_DISABLED', 'Basic authentication is not enabled on this server');
    const credentials = parseBasicAuthorization(authorization);
    if (credentials === null) throw new AppError('UNAUTHENTICATED', 'The Basic authorization header is malformed', null, { headers: basicChallenge(types, request) });
    const failure = new AppError('INVALID_CREDENTIALS', undefined, null, { headers: basicChallenge(types, request) });
    const user = await authenticator.password(credentials.username, credentials.password, address, 'basic', failure);
    return { user, method: 'basic' };
  }
  const username = header(request, 'auth-username');
  if (username !== undefined) {
    if (!types.includes('token')) throw new AppError('AUTH_TYPE_DISABLED', 'Token authentication is not enabled on this server');
    const ts = header(request, 'auth-ts');
    const salt = header(request, 'auth-salt');
    const token = header(request, 'auth-token');
    if (ts === undefined || salt === undefined || token === undefined) {
      throw new AppError('INVALID_TOKEN', 'Token authentication needs the auth-username, auth-ts, auth-salt and auth-token headers');
    }
    const user = await authenticator.token({ username, ts, salt, token }, address);
    return { user, method: 'token' };
  }
  const cookie = request.cookies[SESSION_COOKIE];
  if (cookie !== undefined && types.includes('local')) {
    const found = await authenticator.session(cookie, { staleIfStoreDown: request.routeOptions.config.duringStoreOutage === true });
    if (found !== null) return { user: found.user, method: 'session', session: found.session, sessionToken: cookie };
  }
  return null;
}

/** Installs the authentication gate and the first-run password-change gate. */
export function installAuthentication(app: FastifyInstance, options: AuthHookOptions): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const config = request.routeOptions.config;
    if (config.public === true || config.publicWhen?.(request) === true) return;
    const auth = await identify(request, options);
    request.auth = auth;
    if (auth === null) {
      if (config.optionalAuth === true) return;
      if (request.cookies[SESSION_COOKIE] !== undefined) void reply.clearCookie(SESSION_COOKIE, { path: '/' });
      await options.authenticator.anonymous(request.ip, 'no valid credentials');
      throw new AppError('UNAUTHENTICATED', undefined, null, { headers: basicChallenge(options.types, request) });
    }
    if (auth.user.passwordChangeRequired && config.duringPasswordChange !== true) {
      throw new AppError('PASSWORD_CHANGE_REQUIRED');
    }
  });
}

/** The authenticated user of a request on a route that requires authentication. */
export function currentUser(request: FastifyRequest): UserRecord {
  if (request.auth === null) throw new AppError('UNAUTHENTICATED');
  return request.auth.user;
}
