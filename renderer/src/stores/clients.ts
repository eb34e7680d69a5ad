/** The clients list: loaded from the API, kept in step after each change made from this console. */
import { create } from 'zustand';
import type { ClientCreateInput, ClientUpdateInput, PublicClient } from '../../../service/contracts/clients';
import { createClient, deleteClient, listClients, updateClient } from '../api/clients';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

interface ClientsState {
  clients: PublicClient[];
  status: LoadStatus;
  error: unknown;
  load: () => Promise<void>;
  create: (input: ClientCreateInput) => Promise<PublicClient>;
  update: (id: string, changes: ClientUpdateInput) => Promise<PublicClient>;
  remove: (id: string) => Promise<void>;
}

const byClientID = (a: PublicClient, b: PublicClient): number => a.clientID.localeCompare(b.clientID);

export const useClients = create<ClientsState>()((set, get) => ({
  clients: [],
  status: 'idle',
  error: null,
  async load() {
    set({ status: get().status === 'ready' ? 'ready' : 'loading', error: null });
    try {
      set({ clients: await listClients(), status: 'ready' });
    } catch (err) {
      set({ error: err, status: 'error' });
    }
  },
  async create(input) {
    const created = await createClient(input);
    set({ clients: [...get().clients, created].sort(byClientID) });
    return created;
  },
  async update(id, changes) {
    const updated = await updateClient(id, changes);
    set({ clients: get().clients.map((c) => (c._id === id ? updated : c)).sort(byClientID) });
    return updated;
  },
  async remove(id) {
    await deleteClient(id);
    set({ clients: get().clients.filter((c) => c._id !== id) });
  },
}));

/** Every role name held by some client, sorted: suggestions for the roles field. */
export function knownRoles(clients: readonly PublicClient[]): string[] {
  return [...new Set(clients.flatMap((c) => c.roles))].sort((a, b) => a.localeCompare(b));
}
