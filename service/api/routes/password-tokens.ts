/**
 * OpenHIM's set-password flow, public (the caller has no password yet): `GET /password-reset-request/:email` makes a
 * reset link and sends it, answering the same whether or not the address has an account; `GET /token/:token` shows
 * whose link it is; `PUT /token/:token` sets the password, ends the link and, when local sign-in is on, signs the
 * caller in (a session cookie, as `POST /authenticate/local` sets), so an invited user lands in the console rather
 * than on the sign-in page. Admins make links with `POST /users/:email/password-token` (routes/users.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors.js';
import type { UserAccounts } from '../../accounts/users.js';
import type { Sessions } from '../../accounts/sessions.js';
import { RequestWindow } from '../../accounts/password-tokens.js';
import type { ApiAuthenticationType } from '../../contracts/api.js';
import type { Authenticator } from '../auth/authenticator.js';
import { SESSION_COOKIE } from '../auth/hook.js';
import { sessionCookieOptions } from './authenticate.js';
import { MessageAnswerSchema, NoQuery } from '../schemas/common.js';
import { ResetRequestParams, TokenParams, TokenPasswordBody, TokenUserAnswerSchema } from '../schemas/users.js';

export interface PasswordTokenRoutesDeps {
  accounts: UserAccounts;
  sessions: Sessions;
  authenticator: Authenticator;
  /** How users may sign in: the link signs its user in only when a local sign-in (a password) is allowed at all. */
  types: readonly ApiAuthenticationType[];
  secureCookies: boolean;
  crossSiteCookies: boolean;
  /** For tests: the clock of the request limits. */
  now?: () => number;
}

const HOUR_MS = 60 * 60_000;
/** Requests one address may make in an hour before it gets 429. */
const RESET_REQUESTS_PER_ADDRESS = 10;
/** Links one account gets in an hour; further requests are answered alike but make no new link (no mailbox flood). */
const RESET_LINKS_PER_ACCOUNT = 3;

const RESET_ANSWER = 'If this address belongs to an account, a link to set its password has been made and will be sent to it.';

export function passwordTokenRoutes(deps: PasswordTokenRoutesDeps): FastifyPluginAsyncTypebox {
  const { accounts, sessions, authenticator } = deps;
  const cookieOptions = sessionCookieOptions(deps);
  const clock = deps.now === undefined ? {} : { now: deps.now };
  const perAddress = new RequestWindow({ limit: RESET_REQUESTS_PER_ADDRESS, windowMs: HOUR_MS, ...clock });
  const perAccount = new RequestWindow({ limit: RESET_LINKS_PER_ACCOUNT, windowMs: HOUR_MS, ...clock });

  return async (app) => {
    app.get(
      '/password-reset-request/:email',
      { config: { public: true }, schema: { params: ResetRequestParams, querystring: NoQuery, response: { 201: MessageAnswerSchema } } },
      async (request, reply) => {
        if (!perAddress.take(request.ip)) {
          throw new AppError('TOO_MANY_REQUESTS', undefined, undefined, { headers: { 'retry-after': String(perAddress.retryAfterSeconds()) } });
        }
        const email = request.params.email.trim().toLowerCase();
        // The same answer, and the same work for the caller to see, whether or not the account exists.
        if (perAccount.take(email)) await accounts.requestReset(email);
        return reply.code(201).send({ message: RESET_ANSWER });
      },
    );

    app.get('/token/:token', { config: { public: true }, schema: { params: TokenParams, querystring: NoQuery, response: { 200: TokenUserAnswerSchema } } }, async (request) => {
      const user = await accounts.byToken(request.params.token);
      return {
        email: user.email,
        firstname: user.firstname,
        surname: user.surname,
        ...(user.msisdn === undefined ? {} : { msisdn: user.msisdn }),
        token: request.params.token,
        tokenType: user.tokenType,
        locked: user.passwordHash === null,
        expiry: user.tokenExpiry.toISOString(),
      };
    });

    app.put(
      '/token/:token',
      { config: { public: true }, schema: { params: TokenParams, querystring: NoQuery, body: TokenPasswordBody, response: { 200: MessageAnswerSchema } } },
      async (request, reply) => {
        // Spent here, once: a second use of the same link answers 404 and signs nobody in.
        const user = await accounts.setPasswordByToken(request.params.token, request.body);
        // Whoever was signed in as this account before the reset is signed out.
        await sessions.destroyForUser(user._id);
        request.log.info({ email: user.email }, 'password set through a set-password link');
        // The password just chosen is the user's own, so the first-login change rule is met (setPasswordByToken cleared
        // it): the new session opens the console itself, not the change-password page.
        if (deps.types.includes('local')) {
          await authenticator.passwordLink(user, request.ip);
          const { token } = await sessions.create(user._id, request.ip, request.headers['user-agent']);
          void reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: sessions.maxAgeSeconds });
        }
        return { message: 'Successfully set new user password.' };
      },
    );
  };
}
