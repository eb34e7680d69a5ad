/**
 * OpenID Connect sign-in: `GET /authentication/openid` (public: the button's label), `GET /authenticate/openid/start`
 * (public: the provider's sign-in URL, binding this browser to it with a short-lived cookie) and
 * `POST /authenticate/openid` (OpenHIM's `{code, state, sessionState}`: finishes the sign-in, sets the session cookie).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { OpenIdSignIn } from '../../accounts/openid.js';
import { PENDING_LIFETIME_MS } from '../../accounts/openid.js';
import type { Sessions } from '../../accounts/sessions.js';
import type { Authenticator } from '../auth/authenticator.js';
import { SESSION_COOKIE } from '../auth/hook.js';
import { publicUser } from '../views/users.js';
import { NoQuery } from '../schemas/common.js';
import { LoginAnswerSchema } from '../schemas/users.js';
import { LOGIN_RESULT, sessionCookieOptions } from './authenticate.js';

export interface OpenIdRoutesDeps {
  /** Present when `openid` is in `api.authenticationTypes`. */
  openid?: OpenIdSignIn | undefined;
  sessions: Sessions;
  authenticator: Authenticator;
  secureCookies: boolean;
  crossSiteCookies: boolean;
}

/** Holds the random value that ties a pending sign-in to the browser that started it. */
export const OPENID_COOKIE = 'junction.openid';

const Param = (maxLength: number) => Type.String({ minLength: 1, maxLength });

const CallbackBody = Type.Object(
  {
    code: Param(4096),
    state: Param(512),
    sessionState: Type.Optional(Type.Union([Type.String({ maxLength: 512 }), Type.Null()])),
    iss: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: false },
);

const StartAnswer = Type.Object({ url: Type.String() });
const InfoAnswer = Type.Object({ displayName: Type.String() });

export function openidRoutes(deps: OpenIdRoutesDeps): FastifyPluginAsyncTypebox {
  const session = sessionCookieOptions(deps);
  // The provider sends the browser back with a top-level navigation; the console then posts from the same origin.
  const binding = { ...session, path: '/authenticate/openid', sameSite: deps.crossSiteCookies ? ('none' as const) : ('lax' as const) };
  const enabled = (): OpenIdSignIn => {
    if (deps.openid === undefined) throw new AppError('AUTH_TYPE_DISABLED', 'OpenID Connect sign-in is not enabled on this server');
    return deps.openid;
  };

  return async (app) => {
    app.get('/authentication/openid', { config: { public: true }, schema: { querystring: NoQuery, response: { 200: InfoAnswer } } }, () => ({
      displayName: enabled().displayName,
    }));

    app.get('/authenticate/openid/start', { config: { public: true }, schema: { querystring: NoQuery, response: { 200: StartAnswer } } }, async (request, reply) => {
      const started = await enabled().start(`${request.protocol}://${request.host}`);
      void reply.setCookie(OPENID_COOKIE, started.binding, { ...binding, maxAge: PENDING_LIFETIME_MS / 1000 });
      return { url: started.url };
    });

    app.post(
      '/authenticate/openid',
      { config: { public: true }, schema: { body: CallbackBody, querystring: NoQuery, response: { 200: LoginAnswerSchema } } },
      async (request, reply) => {
        const openid = enabled();
        const { code, state, sessionState, iss } = request.body;
        const cookie = request.cookies[OPENID_COOKIE];
        // Spent or not, the binding is no longer needed.
        void reply.clearCookie(OPENID_COOKIE, binding);
        const user = await deps.authenticator.openid(request.ip, (seen) => openid.finish({ code, state, sessionState: sessionState ?? undefined, iss }, cookie, seen));
        const { token } = await deps.sessions.create(user._id, request.ip, request.headers['user-agent']);
        void reply.setCookie(SESSION_COOKIE, token, { ...session, maxAge: deps.sessions.maxAgeSeconds });
        return { result: LOGIN_RESULT, user: publicUser(user) };
      },
    );
  };
}
