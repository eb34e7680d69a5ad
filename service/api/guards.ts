/**
 * The API's permission guards: the one place a refused decision (domain/access/permissions.ts) becomes an error answer.
 * Every route checks permissions through these, so a refusal reads and answers the same on every resource.
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { adminOnly } from '../domain/access/permissions.js';
import type { Decision } from '../domain/access/permissions.js';
import type { UserRecord } from '../storage/records.js';
import { currentUser } from './auth/hook.js';

/** Throws a refusal as 403 FORBIDDEN, or as the code the decision names. */
export function enforce(decision: Decision): void {
  if (!decision.allowed) throw new AppError(decision.code ?? 'FORBIDDEN', decision.reason);
}

/** The request's user when an admin; otherwise 403 "Only admins can <work>" (for example `requireAdmin(request, 'delete channels')`). */
export function requireAdmin(request: FastifyRequest, work: string): UserRecord {
  const user = currentUser(request);
  enforce(adminOnly(user, work));
  return user;
}
