/**
 * The role matrix: roles with the channels and clients they can be granted on. A role change touches channels and
 * clients, so after each one the whole picture is read again rather than patched here.
 */
import { create } from 'zustand';
import type { Role } from '../../../service/contracts/roles';
import type { PublicClient } from '../../../service/contracts/clients';
import type { ChannelSummary } from '../api/roles';
import { createRole, deleteRole, listChannelSummaries, listRoles, updateRole } from '../api/roles';
import { listClients } from '../api/clients';
import type { LoadStatus } from './list-store';

/** What one role is granted on, by `_id`. */
export interface Grants {
  channels: string[];
  clients: string[];
}

interface RolesState {
  roles: Role[];
  channels: ChannelSummary[];
  clients: PublicClient[];
  status: LoadStatus;
  error: unknown;
  load: () => Promise<void>;
  /** Replaces the role's grants with exactly these (SPEC: given arrays are complete lists). */
  saveGrants: (name: string, grants: Grants) => Promise<void>;
  create: (name: string, grants: Grants) => Promise<void>;
  rename: (from: string, to: string) => Promise<void>;
  remove: (name: string) => Promise<void>;
}

const refs = (grants: Grants) => ({ channels: grants.channels.map((_id) => ({ _id })), clients: grants.clients.map((_id) => ({ _id })) });

export const useRoles = create<RolesState>()((set, get) => {
  async function refresh(): Promise<void> {
    const [roles, channels, clients] = await Promise.all([listRoles(), listChannelSummaries(), listClients()]);
    set({ roles, channels, clients, status: 'ready', error: null });
  }
  return {
    roles: [],
    channels: [],
    clients: [],
    status: 'idle',
    error: null,
    async load() {
      set({ status: get().status === 'ready' ? 'ready' : 'loading', error: null });
      try {
        await refresh();
      } catch (err) {
        set({ error: err, status: 'error' });
      }
    },
    async saveGrants(name, grants) {
      await updateRole(name, refs(grants));
      await refresh();
    },
    async create(name, grants) {
      await createRole({ name, ...refs(grants) });
      await refresh();
    },
    async rename(from, to) {
      await updateRole(from, { name: to });
      await refresh();
    },
    async remove(name) {
      await deleteRole(name);
      await refresh();
    },
  };
});

/** The grants a role has now, as ids. */
export function grantsOf(role: Role): Grants {
  return { channels: role.channels.map((c) => c._id), clients: role.clients.map((c) => c._id) };
}
