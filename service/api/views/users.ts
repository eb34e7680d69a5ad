/** The public view of a user account, as every answer shows it. */
import type { PublicUser } from '../../contracts/api.js';
import type { UserRecord } from '../../storage/records.js';

/** The public view of a user: everything except password material (a pending link shows its kind and expiry, never the token). */
export function publicUser(user: UserRecord): PublicUser {
  const view: PublicUser = {
    _id: user._id,
    email: user.email,
    firstname: user.firstname,
    surname: user.surname,
    groups: [...user.groups],
    dailyReport: user.dailyReport,
    weeklyReport: user.weeklyReport,
    settings: user.settings,
    passwordChangeRequired: user.passwordChangeRequired,
    builtin: user.builtin === true,
    // An OpenID user has no password by design; that is not an unfinished invitation.
    locked: user.passwordHash === null && user.provider !== 'openid',
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
  if (user.msisdn !== undefined) view.msisdn = user.msisdn;
  if (user.provider !== undefined) view.provider = user.provider;
  if (user.tokenType !== undefined && user.tokenExpiry !== undefined) {
    view.tokenType = user.tokenType;
    view.expiry = user.tokenExpiry.toISOString();
  }
  return view;
}
