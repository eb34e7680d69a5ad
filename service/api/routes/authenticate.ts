/**
 * Login and logout: `POST /authenticate/local`, `GET /authenticate/:username`, `GET /logout`, `GET /me`; and which
 * authentication types are on: `GET /authentication/api-types` (public: how users may sign in, for the sign-in page)
 * and `GET /authentication/types` (admins: how clients may authenticate on the transaction ports, as in OpenHIM).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { UserAccounts } from '../../accounts/users.js';
import type { Sessions } from '../../accounts/sessions.js';
import type { ApiAuthenticationType, ClientAuthenticationType } from '../../contracts/api.js';
import type { Authenticator } from '../auth/authenticator.js';
import { SESSION_COOKIE } from '../auth/hook.js';
import { requireAdmin } from '../guards.js';
import { publicUser } from '../views/users.js';
import { NoQuery } from '../schemas/common.js';
import { LoginAnswerSchema, SessionAnswerSchema } from '../schemas/users.js';

export interface AuthRoutesDeps {
  accounts: UserAccounts;
  sessions: Sessions;
  authenticator: Authenticator;
  types: readonly ApiAuthenticationType[];
  /** The client authentication types switched on in the `authentication` settings, in OpenHIM's names. */
  clientAuthTypes: readonly ClientAuthenticationType[];
  /** False only when plain HTTP was explicitly chosen: browsers drop Secure cookies on http. */
  secureCookies: boolean;
  /** True when consoles on other origins may sign in (`api.corsOrigins`): the cookie must then go cross-site. */
  crossSiteCookies: boolean;
}

/** OpenHIM's confirmation text on a successful local login; its console and scripts may look for it. */
export const LOGIN_RESULT = 'User authenticated successfully';

const ApiTypesAnswer = Type.Array(Type.Enum(['basic', 'local', 'token', 'openid']));
const ClientTypesAnswer = Type.Array(Type.Enum(['mutual-tls-auth', 'basic-auth', 'custom-token-auth', 'jwt-auth']));

const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

/** The session cookie's options. A cross-site cookie must be Secure, or browsers refuse it; otherwise no other site's request may carry it. */
export function sessionCookieOptions(deps: Pick<AuthRoutesDeps, 'secureCookies' | 'crossSiteCookies'>) {
  return deps.crossSiteCookies
    ? { path: '/', httpOnly: true, secure: true, sameSite: 'none' as const }
    : { path: '/', httpOnly: true, secure: deps.secureCookies, sameSite: 'strict' as const };
}

export function authRoutes(deps: AuthRoutesDeps): FastifyPluginAsyncTypebox {
  const { accounts, sessions, authenticator, types } = deps;
  const cookieOptions = sessionCookieOptions(deps);

  return async (app) => {
    app.post(
      '/authenticate/local',
      { config: { public: true }, schema: { body: LoginBody, querystring: NoQuery, response: { 200: LoginAnswerSchema } } },
      async (request, reply) => {
        if (!types.includes('local')) throw new AppError('AUTH_TYPE_DISABLED', 'Local login is not enabled on this server');
        const { username, password } = request.body;
        const user = await authenticator.password(username, password, request.ip, 'local', new AppError('INVALID_CREDENTIALS'));
        const { token } = await sessions.create(user._id, request.ip, request.headers['user-agent']);
        void reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: sessions.maxAgeSeconds });
        return { result: LOGIN_RESULT, user: publicUser(user) };
      },
    );

    app.get(
      '/authenticate/:username',
      {
        config: { public: true },
        schema: { params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 254 }) }), querystring: NoQuery },
      },
      async (request) => {
        if (!types.includes('token')) throw new AppError('NOT_FOUND', 'Token authentication is not enabled on this server');
        const user = await accounts.findByEmail(request.params.username);
        if (user?.legacyToken === undefined) {
          throw new AppError('NOT_FOUND', `No token credential for ${request.params.username} yet: it is made when the user next signs in with the password (the console, POST /authenticate/local or Basic), or when the password is set`);
        }
        return { salt: user.legacyToken.salt, ts: new Date().toISOString() };
      },
    );

    app.get('/logout', { config: { optionalAuth: true, duringPasswordChange: true }, schema: { querystring: NoQuery } }, async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (token !== undefined) {
        authenticator.forget(token);
        await sessions.destroy(token);
      }
      void reply.clearCookie(SESSION_COOKIE, cookieOptions);
      return { message: 'Logged out' };
    });

    app.get(
      '/me',
      // The console asks this on every load, and a browser not signed in gets 404: routine, so not logged at info.
      { logLevel: 'warn', config: { optionalAuth: true, duringPasswordChange: true }, schema: { querystring: NoQuery, response: { 200: SessionAnswerSchema } } },
      async (request) => {
        if (request.auth === null) throw new AppError('NOT_FOUND', 'Not logged in');
        return { user: publicUser(request.auth.user) };
      },
    );

    app.get('/authentication/api-types', { config: { public: true }, schema: { querystring: NoQuery, response: { 200: ApiTypesAnswer } } }, () => [...types]);

    app.get('/authentication/types', { schema: { querystring: NoQuery, response: { 200: ClientTypesAnswer } } }, (request) => {
      requireAdmin(request, 'see the client authentication types');
      return [...deps.clientAuthTypes];
    });
  };
}
