/** The public view of a user account, as every answer shows it. */
import type { PublicUser } from '../../contracts/api.js';
import type { UserRecord } from '../../storage/records.js';

/** The public view of a user: everything except password material. */
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
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
  if (user.msisdn !== undefined) view.msisdn = user.msisdn;
  return view;
}
