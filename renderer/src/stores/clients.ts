/** The clients list: loaded from the API, kept in step after each change made from this console. */
import type { ClientCreateInput, ClientUpdateInput, PublicClient } from '../../../service/contracts/clients';
import { createClient, deleteClient, listClients, updateClient } from '../api/clients';
import { createListStore } from './list-store';

export const useClients = createListStore<PublicClient, ClientCreateInput, ClientUpdateInput>({
  list: listClients,
  create: createClient,
  update: updateClient,
  remove: deleteClient,
  keyOf: (c) => c._id,
  order: (a, b) => a.clientID.localeCompare(b.clientID),
  orderLoaded: false,
});

/** Every role name held by some client, sorted: suggestions for the roles field. */
export function knownRoles(clients: readonly PublicClient[]): string[] {
  return [...new Set(clients.flatMap((c) => c.roles))].sort((a, b) => a.localeCompare(b));
}
