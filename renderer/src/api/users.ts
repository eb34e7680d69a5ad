/** The users routes of the management API, typed. Users are addressed by email. */
import type { PublicUser, UserCreateInput, UserUpdateInput } from '../../../service/contracts/users';
import { api, seg } from './client';

export function listUsers(signal?: AbortSignal): Promise<PublicUser[]> {
  return api.get<PublicUser[]>('/users', undefined, signal);
}

export function getUser(email: string, signal?: AbortSignal): Promise<PublicUser> {
  return api.get<PublicUser>(`/users/${seg(email)}`, undefined, signal);
}

export function createUser(input: UserCreateInput): Promise<PublicUser> {
  return api.post<PublicUser>('/users', input);
}

export function updateUser(email: string, changes: UserUpdateInput): Promise<PublicUser> {
  return api.put<PublicUser>(`/users/${seg(email)}`, changes);
}

export async function deleteUser(email: string): Promise<void> {
  await api.delete(`/users/${seg(email)}`);
}
