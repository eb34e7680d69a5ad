/** The clients routes of the management API, typed. */
import type { ClientCreateInput, ClientUpdateInput, PublicClient } from '../../../service/contracts/clients';
import { api, seg } from './client';

export function listClients(signal?: AbortSignal): Promise<PublicClient[]> {
  return api.get<PublicClient[]>('/clients', undefined, signal);
}

export function createClient(input: ClientCreateInput): Promise<PublicClient> {
  return api.post<PublicClient>('/clients', input);
}

/** `id` is the client's `_id`, not its clientID. */
export function updateClient(id: string, changes: ClientUpdateInput): Promise<PublicClient> {
  return api.put<PublicClient>(`/clients/${seg(id)}`, changes);
}

export async function deleteClient(id: string): Promise<void> {
  await api.delete(`/clients/${seg(id)}`);
}
