/** Typed calls of the contact groups routes (admins only): the named recipient lists a channel's alerts name by `_id`. */
import type { ContactGroup } from '../../../service/contracts/contact-groups';
import { api } from './client';

/** Every contact group, as `GET /groups` lists them. */
export function listContactGroups(signal?: AbortSignal): Promise<ContactGroup[]> {
  return api.get<ContactGroup[]>('/groups', undefined, signal);
}

/** The part of a contact group the channel editor needs to offer it by name. */
export type ContactGroupChoice = Pick<ContactGroup, '_id' | 'group'>;
