/** The users list (admins) and the signed-in user's own account; users are addressed by email. */
import type { PublicUser, UserCreateInput, UserUpdateInput } from '../../../service/contracts/users';
import { createUser, deleteUser, listUsers, updateUser } from '../api/users';
import { useSession } from './session';
import { createListStore } from './list-store';

/** Keeps the header and permission checks right when someone edits their own account. */
function syncSession(updated: PublicUser, previousEmail: string): void {
  const session = useSession.getState();
  if (session.user !== null && session.user.email === previousEmail) useSession.setState({ user: { ...session.user, ...updated } });
}

export const useUsers = createListStore<PublicUser, UserCreateInput, UserUpdateInput>({
  list: listUsers,
  create: createUser,
  update: updateUser,
  remove: deleteUser,
  keyOf: (u) => u.email,
  order: (a, b) => a.email.localeCompare(b.email),
  updated: syncSession,
});
