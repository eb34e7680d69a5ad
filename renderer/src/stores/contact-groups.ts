/** The contact groups list (admins): loaded from the API, kept in step after each change made from this console. */
import type { ContactGroup, ContactGroupCreateInput, ContactGroupUpdateInput } from '../../../service/contracts/contact-groups';
import { createContactGroup, deleteContactGroup, listContactGroups, updateContactGroup } from '../api/contact-groups';
import { createListStore } from './list-store';

export const useContactGroups = createListStore<ContactGroup, ContactGroupCreateInput, ContactGroupUpdateInput>({
  list: listContactGroups,
  create: createContactGroup,
  update: updateContactGroup,
  remove: deleteContactGroup,
  keyOf: (g) => g._id,
  order: (a, b) => a.group.localeCompare(b.group),
});
