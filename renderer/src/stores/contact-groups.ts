/** The contact groups list (admins): loaded from the API, kept in step after each change made from this console. */
import { create } from 'zustand';
import type { ContactGroup, ContactGroupCreateInput, ContactGroupUpdateInput } from '../../../service/contracts/contact-groups';
import { createContactGroup, deleteContactGroup, listContactGroups, updateContactGroup } from '../api/contact-groups';
import type { LoadStatus } from './clients';

interface ContactGroupsState {
  groups: ContactGroup[];
  status: LoadStatus;
  error: unknown;
  load: () => Promise<void>;
  create: (input: ContactGroupCreateInput) => Promise<ContactGroup>;
  update: (id: string, changes: ContactGroupUpdateInput) => Promise<ContactGroup>;
  remove: (id: string) => Promise<void>;
}

const byName = (a: ContactGroup, b: ContactGroup): number => a.group.localeCompare(b.group);

export const useContactGroups = create<ContactGroupsState>()((set, get) => ({
  groups: [],
  status: 'idle',
  error: null,
  async load() {
    set({ status: get().status === 'ready' ? 'ready' : 'loading', error: null });
    try {
      set({ groups: (await listContactGroups()).sort(byName), status: 'ready' });
    } catch (err) {
      set({ error: err, status: 'error' });
    }
  },
  async create(input) {
    const created = await createContactGroup(input);
    set({ groups: [...get().groups, created].sort(byName) });
    return created;
  },
  async update(id, changes) {
    const updated = await updateContactGroup(id, changes);
    set({ groups: get().groups.map((g) => (g._id === id ? updated : g)).sort(byName) });
    return updated;
  },
  async remove(id) {
    await deleteContactGroup(id);
    set({ groups: get().groups.filter((g) => g._id !== id) });
  },
}));
