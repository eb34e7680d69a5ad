/** Turns any failure into a sentence a clinic's administrator can act on. */
import { ApiError } from './client';

const BY_CODE: Record<string, string> = {
  NETWORK: 'Junction is not answering. Check that the service is running and that this computer can reach it.',
  UNAUTHENTICATED: 'Your session has ended. Sign in again to continue.',
  INVALID_CREDENTIALS: 'The email or password is not right.',
  AUTH_TYPE_DISABLED: 'This way of signing in is turned off on this server.',
  FORBIDDEN: 'Your account is not allowed to do this. Ask an administrator for access.',
  CROSS_ORIGIN_REFUSED: "Junction refused this change because the page's address is not Junction's own. Open the console at the address Junction serves it from, or ask the administrator to add this address to api.corsOrigins.",
  PASSWORD_CHANGE_REQUIRED: 'You need to choose a new password before you can continue.',
  BUILTIN_USER_PROTECTED: 'The built-in administrator cannot be deleted or removed from the admin group.',
  NOT_FOUND: 'That item no longer exists. It may have been deleted by someone else.',
  CONFLICT: 'That name or identifier is already in use.',
  BODY_TOO_LARGE: 'What you sent is larger than the server accepts.',
  TOO_MANY_ATTEMPTS: 'Too many failed sign-in attempts. Wait a few minutes and try again.',
  TRANSACTION_NOT_RERUNNABLE: 'This transaction cannot be re-run.',
  STORE_UNAVAILABLE: 'Junction cannot reach its data store right now. Try again in a moment.',
  SERVICE_STOPPING: 'Junction is restarting. Try again in a moment.',
  INTERNAL: 'Something went wrong inside Junction. The details are in the service log.',
};

/** Field paths (`routes.0.host`) in words: `routes 1, host`. */
export function fieldLabel(path: string): string {
  return path
    .replace(/^(body|query|params)\.?/, '')
    .split('.')
    .map((part) => (/^\d+$/.test(part) ? String(Number(part) + 1) : part))
    .join(' › ');
}

/**
 * One sentence for a failure. The server's own message is kept where it names the problem (validation, conflicts,
 * rules); the generic ones are replaced with what to do about it.
 */
export function describeError(err: unknown, action?: string): string {
  const prefix = action === undefined ? '' : `Could not ${action}. `;
  if (err instanceof ApiError) {
    if (err.code === 'VALIDATION_FAILED' || err.code === 'BAD_REQUEST' || err.code === 'PASSWORD_TOO_WEAK') {
      const problems = err.problems;
      if (problems.length > 0) return `${prefix}${problems.map((p) => `${fieldLabel(p.path)} ${p.message}`).join('; ')}.`;
      return `${prefix}${err.message}`;
    }
    if (err.code === 'CONFLICT' || err.code === 'FORBIDDEN' || err.code === 'NOT_FOUND' || err.code === 'TRANSACTION_NOT_RERUNNABLE') {
      // The server says which name clashes, which rule refused, or what is missing: more useful than the generic line.
      const generic = BY_CODE[err.code] ?? '';
      return `${prefix}${err.message && !/^(Not found|You are not allowed to do this)$/.test(err.message) ? err.message : generic}`;
    }
    const known = BY_CODE[err.code];
    if (known !== undefined) return `${prefix}${known}`;
    if (err.status >= 500) return `${prefix}Junction answered with an error (${err.status}): ${err.message}`;
    return `${prefix}${err.message}`;
  }
  if (err instanceof Error) return `${prefix}${err.message}`;
  return `${prefix}${String(err)}`;
}
