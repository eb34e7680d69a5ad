/**
 * Users: `GET/POST /users` (a user created without a password is invited), `GET/PUT/DELETE /users/:email`, and
 * `POST /users/:email/password-token` (admins: a set-password link for the user, shown once).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { canAddressUser, canCreateUser, canDeleteUser, canListUsers, canReadUser, canUpdateUser } from '../../domain/access/permissions.js';
import type { UserAccounts } from '../../accounts/users.js';
import type { Sessions } from '../../accounts/sessions.js';
import type { UserRecord } from '../../storage/records.js';
import { currentUser } from '../auth/hook.js';
import { enforce } from '../guards.js';
import { publicUser } from '../views/users.js';
import { NoQuery } from '../schemas/common.js';
import { PasswordTokenAnswerSchema, PublicUserSchema, UserCreateBody, UserParams, UserUpdateBody } from '../schemas/users.js';

export interface UserRoutesDeps {
  accounts: UserAccounts;
  sessions: Sessions;
}

/** While the first-run password is pending, the only change allowed is the user's own new password. */
function onlyOwnPasswordChange(actor: UserRecord, target: UserRecord, body: UserUpdateBody): void {
  if (!actor.passwordChangeRequired) return;
  const keys = Object.keys(body);
  if (actor._id !== target._id || typeof body.password !== 'string' || body.password === '' || keys.some((k) => k !== 'password')) {
    throw new AppError('PASSWORD_CHANGE_REQUIRED');
  }
}

export function userRoutes(deps: UserRoutesDeps): FastifyPluginAsyncTypebox {
  const { accounts, sessions } = deps;

  return async (app) => {
    app.get('/users', { schema: { querystring: NoQuery, response: { 200: Type.Array(PublicUserSchema) } } }, async (request) => {
      enforce(canListUsers(currentUser(request)));
      return (await accounts.list()).map(publicUser);
    });

    app.post('/users', { schema: { querystring: NoQuery, body: UserCreateBody, response: { 201: PublicUserSchema } } }, async (request, reply) => {
      enforce(canCreateUser(currentUser(request)));
      const created = await accounts.create(request.body);
      request.log.info({ email: created.email, by: currentUser(request).email }, 'user created');
      return reply.code(201).send(publicUser(created));
    });

    // Until Junction can send email, this is how an invited user gets their link: the admin passes it on. It also
    // renews an expired invitation, and gives a user who forgot their password a reset link.
    app.post(
      '/users/:email/password-token',
      { schema: { params: UserParams, querystring: NoQuery, response: { 201: PasswordTokenAnswerSchema } } },
      async (request, reply) => {
        const actor = currentUser(request);
        enforce(canCreateUser(actor));
        const target = await accounts.get(request.params.email);
        const issued = await accounts.issueToken(target, target.passwordHash === null ? 'newUser' : 'existingUser');
        request.log.info({ email: target.email, by: actor.email, tokenType: issued.tokenType }, 'set-password link made');
        return reply.code(201).send({ token: issued.token, tokenType: issued.tokenType, expiry: issued.expiry.toISOString() });
      },
    );

    app.get('/users/:email', { schema: { params: UserParams, querystring: NoQuery, response: { 200: PublicUserSchema } } }, async (request) => {
      const actor = currentUser(request);
      // Checked before the lookup, so a non-admin cannot tell which addresses have accounts.
      enforce(canAddressUser(actor, request.params.email));
      const target = await accounts.get(request.params.email);
      enforce(canReadUser(actor, target));
      return publicUser(target);
    });

    app.put(
      '/users/:email',
      {
        config: { duringPasswordChange: true },
        schema: { params: UserParams, querystring: NoQuery, body: UserUpdateBody, response: { 200: PublicUserSchema } },
      },
      async (request) => {
        const actor = currentUser(request);
        enforce(canAddressUser(actor, request.params.email));
        const target = await accounts.get(request.params.email);
        onlyOwnPasswordChange(actor, target, request.body);
        enforce(canUpdateUser(actor, target, request.body));
        const updated = await accounts.update(target, request.body);
        if (typeof request.body.password === 'string' && request.body.password !== '') {
          // Other sessions of this account end; the one that made the change stays logged in.
          const keep = actor._id === target._id ? request.auth?.session?._id : undefined;
          await sessions.destroyForUser(target._id, keep);
        }
        request.log.info({ email: updated.email, by: actor.email, fields: Object.keys(request.body) }, 'user updated');
        return publicUser(updated);
      },
    );

    app.delete('/users/:email', { schema: { params: UserParams, querystring: NoQuery } }, async (request) => {
      const actor = currentUser(request);
      enforce(canAddressUser(actor, request.params.email));
      const target = await accounts.get(request.params.email);
      enforce(canDeleteUser(actor, target));
      await accounts.remove(target);
      await sessions.destroyForUser(target._id);
      request.log.info({ email: target.email, by: actor.email }, 'user deleted');
      return { message: `User ${target.email} deleted` };
    });
  };
}
