/** The roles routes of the management API, typed, and the channel list the role matrix needs. */
import type { Role, RoleCreateInput, RoleUpdateInput } from '../../../service/contracts/roles';
import { api, seg } from './client';

/** The part of a channel the role matrix uses. */
export interface ChannelSummary {
  _id: string;
  name: string;
  allow: string[];
}

export function listRoles(signal?: AbortSignal): Promise<Role[]> {
  return api.get<Role[]>('/roles', undefined, signal);
}

export function createRole(input: RoleCreateInput): Promise<Role> {
  return api.post<Role>('/roles', input);
}

export function updateRole(name: string, changes: RoleUpdateInput): Promise<Role> {
  return api.put<Role>(`/roles/${seg(name)}`, changes);
}

export async function deleteRole(name: string): Promise<void> {
  await api.delete(`/roles/${seg(name)}`);
}

/** Every channel the signed-in user can see (deleted ones are never listed). */
export async function listChannelSummaries(signal?: AbortSignal): Promise<ChannelSummary[]> {
  const channels = await api.get<ChannelSummary[]>('/channels', undefined, signal);
  return channels.map((c) => ({ _id: c._id, name: c.name, allow: c.allow }));
}
