/** Typed calls of the contact groups routes (admins only): the named recipient lists a channel's alerts name by `_id`. */
import type { ChannelUsingGroup, ContactGroup, ContactGroupCreateInput, ContactGroupUpdateInput } from '../../../service/contracts/contact-groups';
import { ApiError, api, seg } from './client';

/** Every contact group, as `GET /groups` lists them. */
export function listContactGroups(signal?: AbortSignal): Promise<ContactGroup[]> {
  return api.get<ContactGroup[]>('/groups', undefined, signal);
}

/** Creates a group (`POST /groups`); 409 when the name is taken. */
export function createContactGroup(input: ContactGroupCreateInput): Promise<ContactGroup> {
  return api.post<ContactGroup>('/groups', input);
}

/** Renames a group and/or replaces its recipients (`PUT /groups/:id`). */
export function updateContactGroup(id: string, changes: ContactGroupUpdateInput): Promise<ContactGroup> {
  return api.put<ContactGroup>(`/groups/${seg(id)}`, changes);
}

/** Deletes a group (`DELETE /groups/:id`); 409 naming the channels whose alerts still use it. */
export async function deleteContactGroup(id: string): Promise<void> {
  await api.delete(`/groups/${seg(id)}`);
}

/** The channels a refused deletion names (`details.channels` of its 409), or [] for any other failure. */
export function channelsBlockingDelete(err: unknown): ChannelUsingGroup[] {
  if (!(err instanceof ApiError) || err.status !== 409) return [];
  const details = err.details as { channels?: unknown } | null;
  if (details === null || typeof details !== 'object' || !Array.isArray(details.channels)) return [];
  return details.channels.filter(
    (c): c is ChannelUsingGroup => typeof c === 'object' && c !== null && typeof (c as ChannelUsingGroup)._id === 'string' && typeof (c as ChannelUsingGroup).name === 'string',
  );
}

/** The part of a contact group the channel editor needs to offer it by name. */
export type ContactGroupChoice = Pick<ContactGroup, '_id' | 'group'>;
