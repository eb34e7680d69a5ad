/** The users list (admins) and the signed-in user's own account. */
import { create } from 'zustand';
import type { PublicUser, UserCreateInput, UserUpdateInput } from '../../../service/contracts/users';
import { createUser, deleteUser, listUsers, updateUser } from '../api/users';
import { useSession } from './session';
import type { LoadStatus } from './clients';

interface UsersState {
  users: PublicUser[];
  status: LoadStatus;
  error: unknown;
  load: () => Promise<void>;
  create: (input: UserCreateInput) => Promise<PublicUser>;
  /** `email` is the address the account has before the change. */
  update: (email: string, changes: UserUpdateInput) => Promise<PublicUser>;
  remove: (email: string) => Promise<void>;
}

const byEmail = (a: PublicUser, b: PublicUser): number => a.email.localeCompare(b.email);

/** Keeps the header and permission checks right when someone edits their own account. */
function syncSession(updated: PublicUser, previousEmail: string): void {
  const session = useSession.getState();
  if (session.user !== null && session.user.email === previousEmail) useSession.setState({ user: { ...session.user, ...updated } });
}

export const useUsers = create<UsersState>()((set, get) => ({
  users: [],
  status: 'idle',
  error: null,
  async load() {
    set({ status: get().status === 'ready' ? 'ready' : 'loading', error: null });
    try {
      set({ users: (await listUsers()).sort(byEmail), status: 'ready' });
    } catch (err) {
      set({ error: err, status: 'error' });
    }
  },
  async create(input) {
    const created = await createUser(input);
    set({ users: [...get().users, created].sort(byEmail) });
    return created;
  },
  async update(email, changes) {
    const updated = await updateUser(email, changes);
    set({ users: get().users.map((u) => (u.email === email ? updated : u)).sort(byEmail) });
    syncSession(updated, email);
    return updated;
  },
  async remove(email) {
    await deleteUser(email);
    set({ users: get().users.filter((u) => u.email !== email) });
  },
}));
