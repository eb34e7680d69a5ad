/** The public view of a contact group, as every answer shows it. */
import type { ContactGroup } from '../../contracts/contact-groups.js';
import type { ContactGroupRecord } from '../../storage/records.js';

/** A contact group as answered: its id, name and recipients. */
export function contactGroupView(group: ContactGroupRecord): ContactGroup {
  const external = (group.external ?? []).map(({ address, method, maxAlerts }) => ({ address, method, maxAlerts }));
  return { _id: group._id, group: group.group, users: group.users.map(({ user, method, maxAlerts }) => ({ user, method, maxAlerts })), ...(external.length === 0 ? {} : { external }) };
}
