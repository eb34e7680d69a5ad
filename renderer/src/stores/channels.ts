/**
 * The Channels area: the list with its actions (enable/disable, delete, restore, trigger), the notice of what just happened,
 * and the look-ups the editor suggests from (clients, roles, users and their groups, contact groups).
 */
import { create } from 'zustand';
import type { Channel, ChannelStatusRow } from '../../../service/contracts/channels';
import {
  deleteChannel,
  getChannelStatus,
  listChannels,
  listClientChoices,
  listRoleNames,
  listUserChoices,
  restoreChannel,
  setChannelStatus,
  triggerChannel,
} from '../api/channels';
import type { ClientChoice, UserChoice } from '../api/channels';
import { listContactGroups } from '../api/contact-groups';
import { getAttention } from '../api/attention';
import type { ContactGroupChoice } from '../api/contact-groups';

export type ChannelAction = 'status' | 'delete' | 'restore' | 'trigger';

/** How a deleted channel comes back: its status, and a new name when a live channel has taken the old one. */
export interface RestoreChoice {
  status: 'enabled' | 'disabled';
  name?: string;
}

export interface ChannelNotice {
  text: string;
  /** The transaction a trigger started, to link to. */
  transactionId?: string;
}

export interface ChannelLookups {
  clients: ClientChoice[];
  roles: string[];
  users: UserChoice[];
  /** The groups users belong to, sorted. */
  groups: string[];
  /** The contact groups alerts can name; null until fetched, or when they could not be. */
  contactGroups: ContactGroupChoice[] | null;
  /** Why email or SMS cannot be sent (the missing setting), for the alert editor's warning; null when not known. */
  messaging: { email?: string; sms?: string } | null;
  loaded: boolean;
  /** Suggestions that could not be fetched; the editor still works without them. */
  error: unknown;
}

interface ChannelsState {
  channels: Channel[];
  /** Each channel's "is it working?" row by id (`GET /channels/status`), read with the list. */
  statuses: Record<string, ChannelStatusRow>;
  /** When "today" began for the counts (ISO), and its zone; null until read. */
  statusSince: { since: string; timeZone: string } | null;
  /** The status could not be read: the list still shows, without it. */
  statusError: unknown;
  includeDeleted: boolean;
  loading: boolean;
  loaded: boolean;
  loadError: unknown;
  /** The action running per channel id. */
  busy: Record<string, ChannelAction | undefined>;
  actionError: { error: unknown; action: string } | null;
  notice: ChannelNotice | null;
  lookups: ChannelLookups;
  load: () => Promise<void>;
  setIncludeDeleted: (include: boolean) => void;
  setStatus: (channel: Channel, enabled: boolean) => Promise<void>;
  remove: (channel: Channel) => Promise<void>;
  /** Rejects when the service refuses, so the restore dialog can show why next to the name. */
  restore: (channel: Channel, choice: RestoreChoice) => Promise<Channel>;
  trigger: (channel: Channel) => Promise<void>;
  /** Called by the editor after a save, so the list is current and says what happened. */
  saved: (channel: Channel, created: boolean) => void;
  dismiss: () => void;
  loadLookups: () => Promise<void>;
}

let loadSeq = 0;

const emptyLookups: ChannelLookups = { clients: [], roles: [], users: [], groups: [], contactGroups: null, messaging: null, loaded: false, error: null };

function replace(channels: Channel[], updated: Channel): Channel[] {
  const found = channels.some((c) => c._id === updated._id);
  return found ? channels.map((c) => (c._id === updated._id ? updated : c)) : [...channels, updated].sort((a, b) => a.name.localeCompare(b.name));
}

export const useChannels = create<ChannelsState>()((set, get) => {
  const setBusy = (id: string, action: ChannelAction | undefined) => set((s) => ({ busy: { ...s.busy, [id]: action } }));

  /** Runs one list action, recording a failure in words instead of throwing. */
  async function act(channel: Channel, action: ChannelAction, words: string, run: () => Promise<void>): Promise<void> {
    setBusy(channel._id, action);
    set({ actionError: null, notice: null });
    try {
      await run();
    } catch (error) {
      set({ actionError: { error, action: words } });
    } finally {
      setBusy(channel._id, undefined);
    }
  }

  return {
    channels: [],
    statuses: {},
    statusSince: null,
    statusError: null,
    includeDeleted: false,
    loading: false,
    loaded: false,
    loadError: null,
    busy: {},
    actionError: null,
    notice: null,
    lookups: emptyLookups,

    async load() {
      const seq = ++loadSeq;
      set({ loading: true, loadError: null });
      try {
        const includeDeleted = get().includeDeleted;
        // Two calls whatever the number of channels: the list, and every channel's status at once.
        const [channels, status] = await Promise.all([listChannels({ includeDeleted }), getChannelStatus({ includeDeleted }).then((s) => ({ ok: true as const, s }), (error: unknown) => ({ ok: false as const, error }))]);
        if (seq !== loadSeq) return;
        if (status.ok) {
          set({ channels, loading: false, loaded: true, statuses: Object.fromEntries(status.s.channels.map((c) => [c._id, c])), statusSince: { since: status.s.since, timeZone: status.s.timeZone }, statusError: null });
        } else {
          set({ channels, loading: false, loaded: true, statusError: status.error });
        }
      } catch (error) {
        if (seq === loadSeq) set({ loadError: error, loading: false });
      }
    },

    setIncludeDeleted(include) {
      set({ includeDeleted: include });
      void get().load();
    },

    setStatus(channel, enabled) {
      const words = `${enabled ? 'enable' : 'disable'} channel “${channel.name}”`;
      return act(channel, 'status', words, async () => {
        const updated = await setChannelStatus(channel._id, enabled ? 'enabled' : 'disabled');
        set((s) => ({ channels: replace(s.channels, updated), notice: { text: `Channel “${updated.name}” is now ${enabled ? 'enabled' : 'disabled'}.` } }));
      });
    },

    remove(channel) {
      return act(channel, 'delete', `delete channel “${channel.name}”`, async () => {
        await deleteChannel(channel._id);
        set({ notice: { text: `Channel “${channel.name}” was deleted.` } });
        // The service may keep it, marked deleted, when transactions refer to it: the list asks again.
        await get().load();
      });
    },

    async restore(channel, choice) {
      setBusy(channel._id, 'restore');
      set({ actionError: null, notice: null });
      try {
        const restored = await restoreChannel(channel._id, choice.status, choice.name);
        set((s) => ({ channels: replace(s.channels, restored), notice: { text: `Channel “${restored.name}” was restored; it is ${restored.status}.` } }));
        return restored;
      } finally {
        setBusy(channel._id, undefined);
      }
    },

    trigger(channel) {
      return act(channel, 'trigger', `trigger channel “${channel.name}”`, async () => {
        const answer = await triggerChannel(channel._id);
        set({ notice: { text: `${answer.message}.`, transactionId: answer.transactionId } });
      });
    },

    saved(channel, created) {
      set((s) => ({
        channels: replace(s.channels, channel),
        actionError: null,
        notice: { text: `Channel “${channel.name}” was ${created ? 'created' : 'saved'}.${channel.admitsNobody === undefined ? '' : ` Nobody may use it: ${channel.admitsNobody}.`}` },
      }));
    },

    dismiss() {
      set({ notice: null, actionError: null });
    },

    async loadLookups() {
      const [clients, roles, users, contactGroups] = await Promise.allSettled([listClientChoices(), listRoleNames(), listUserChoices(), listContactGroups()]);
      // Not a suggestion: without it the alert editor only cannot warn that mail is not set up.
      const messaging = (await getAttention().catch(() => null))?.messaging ?? null;
      const failed = [clients, roles, users, contactGroups].find((r) => r.status === 'rejected');
      const userList = users.status === 'fulfilled' ? users.value : [];
      const clientList = clients.status === 'fulfilled' ? clients.value : [];
      const roleNames = new Set(roles.status === 'fulfilled' ? roles.value : []);
      // Roles named on clients count too: a channel may be opened to a role before any channel uses it.
      for (const client of clientList) for (const role of client.roles) roleNames.add(role);
      const groups = [...new Set(userList.flatMap((u) => u.groups))].sort();
      set({
        lookups: {
          clients: clientList,
          roles: [...roleNames].sort(),
          users: userList,
          groups,
          contactGroups: contactGroups.status === 'fulfilled' ? contactGroups.value.map((g) => ({ _id: g._id, group: g.group })) : null,
          messaging,
          loaded: true,
          error: failed === undefined ? null : failed.reason,
        },
      });
    },
  };
});
