/**
 * The attention wing: the "needs attention" list (`GET /attention`, issue 35) over the parts built before it, and
 * the check the channel routes answer with when a channel admits nobody. Whether email and SMS are set up is the
 * notify wing's answer for the settings in force (the file's, or those saved in the console); the channels refusing
 * traffic are the refusal recorder's.
 */
import { Attention } from '../attention/attention.js';
import { recordedRefusals } from '../attention/recorded-refusals.js';
import type { RefusalRecorder } from '../refused/recorder.js';
import type { MessagingCheck, RecentRefusals } from '../attention/sources.js';
import { watched } from '../keystore/expiry-job.js';
import { nobodyAdmitted } from '../domain/channels/channel-access.js';
import type { AccessCheckedChannel } from '../domain/channels/channel-access.js';
import type { Keystore } from '../keystore/keystore.js';
import type { Backups } from '../backup/backups.js';
import type { Store } from '../storage/store.js';
import { clockOf } from './core.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Disk } from './disk.js';
import type { Notify } from './notify.js';
import type { Transports } from './transports.js';
import type { Services } from './services.js';
import type { Wing } from './lifecycle.js';
import type { Search } from './search.js';

export interface AttentionWing {
  attention: Attention;
  /** A check of why nobody can use a channel (null: someone can), over the clients as they are now: the channel answers' warning. */
  channelAdmission: () => Promise<(channel: AccessCheckedChannel) => string | null>;
  /** Whether email and SMS are set up, for the console's warnings. */
  messaging: MessagingCheck;
}

export interface AttentionParts {
  storage: Storage;
  store: Store;
  keystore: Keystore;
  backups: Backups;
  disk: Disk;
  transports: Transports;
  services: Services;
  notify: Notify;
  refusals: RefusalRecorder;
  search: Search;
}

export function attentionWing(core: Core, parts: AttentionParts): Wing<AttentionWing> {
  const { config, logger, options } = core;
  const { storage, store, keystore, backups, disk, transports, services, notify, refusals, search } = parts;
  const messaging: MessagingCheck = () => notify.missing();
  const recentRefusals: RecentRefusals = recordedRefusals(refusals);
  const attention = new Attention(
    {
      store,
      messaging,
      recentRefusals,
      listenerState: (id) => transports.listeners.state(id),
      transactionChannel: async (id) => (await storage.transactions.get(id))?.channelID,
      mediatorOnline: (m) => services.mediators.isOnline(m),
      certificates: () => watched(keystore),
      backups: () => backups.status(),
      disk: () => disk.watcher.space,
      storeHealth: () => store.health(),
      search: {
        enabled: search.enabled,
        index: search.index,
        log: storage.transactions,
        lastError: () => search.indexer?.health().lastError,
      },
      settings: {
        reportsEnabled: config.reports.enableReports,
        refusalWindowMinutes: config.attention.refusalWindowMinutes,
        failedMessagesHours: config.attention.failedMessagesHours,
        autoRetryQueueWarning: config.attention.autoRetryQueueWarning,
        searchBehindMinutes: config.attention.searchBehindMinutes,
        searchBehindTransactions: config.attention.searchBehindTransactions,
        certificateWarningDays: config.keystore.expiryWarningDays,
      },
    },
    logger.child({ component: 'attention' }),
    clockOf(options).now,
  );
  const channelAdmission = async () => {
    const clients = await store.clients.find({});
    return (channel: AccessCheckedChannel) => nobodyAdmitted(channel, clients);
  };
  return { offers: { attention, channelAdmission, messaging } };
}
