/**
 * What the dashboard's first-run checklist is decided from: the channels, the clients, whether any transaction
 * exists, and the transaction ports for the first message's address. Read when the dashboard opens, again every
 * `CHECK_MS` while steps are left (a channel made in another tab, or through the API, ticks too), and a transaction
 * arriving on the live feed ticks the last step at once.
 */
import { create } from 'zustand';
import type { ServicePort } from '../../../service/contracts/api';
import type { Channel } from '../../../service/contracts/channels';
import type { PublicClient } from '../../../service/contracts/clients';
import { getAbout } from '../api/about';
import { listChannels } from '../api/channels';
import { listClients } from '../api/clients';
import { listTransactions } from '../api/transactions';

/** How often the checklist looks again while a step is left. */
export const CHECK_MS = 10_000;

interface FirstRunState {
  channels: Channel[] | null;
  clients: PublicClient[] | null;
  anyTransaction: boolean | null;
  ports: ServicePort[];
  /** The HTTPS transaction port's certificate is one Junction made itself. */
  selfSignedCertificate: boolean;
  error: unknown;
  load: () => Promise<void>;
  /** A transaction arrived on the live feed. */
  transactionSeen: () => void;
}

export const useFirstRun = create<FirstRunState>()((set, get) => ({
  channels: null,
  clients: null,
  anyTransaction: null,
  ports: [],
  selfSignedCertificate: false,
  error: null,
  async load() {
    try {
      const known = get().anyTransaction === true;
      const [channels, clients, transactions, about] = await Promise.all([
        listChannels(),
        listClients(),
        // Once one is known, none need be read again: transactions are not taken back by anyone starting out.
        known ? Promise.resolve(null) : listTransactions({}, 0, 1),
        getAbout(),
      ]);
      set({
        channels,
        clients,
        anyTransaction: get().anyTransaction === true || (transactions !== null && transactions.length > 0),
        ports: about.ports ?? [],
        selfSignedCertificate: about.certificate?.source === 'generated',
        error: null,
      });
    } catch (error) {
      set({ error });
    }
  },
  transactionSeen() {
    set({ anyTransaction: true });
  },
}));
