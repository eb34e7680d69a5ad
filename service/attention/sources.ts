/**
 * The sources of the "needs attention" list (issue 35), one row each in a typed table: each gathers its facts from
 * the parts it is given and hands them to its decision in domain/operations/attention.ts. A new kind of problem is a
 * new row (and its decision), nothing else.
 */
import type { AttentionItem } from '../contracts/attention.js';
import type { AlertMethod, ChannelListener } from '../contracts/channels.js';
import type { DiskSpace } from '../contracts/api.js';
import type { BackupStatus } from '../contracts/backup.js';
import type { Store, StoreHealth } from '../storage/store.js';
import type { SearchIndex } from '../storage/search-index.js';
import type { TransactionLog } from '../storage/transactions.js';
import type { MediatorRecord } from '../storage/records.js';
import { ADMIN_GROUP } from '../domain/access/permissions.js';
import { expiringCertificates } from '../domain/alerts/certificate-expiry.js';
import type { WatchedCertificate } from '../domain/alerts/certificate-expiry.js';
import { LISTENING_CHANNEL_TYPES } from '../domain/channels/channel-kinds.js';
import { nobodyAdmitted } from '../domain/channels/channel-access.js';
import {
  admitsNobodyItem,
  alertRulesByMethod,
  autoRetryItems,
  backupItems,
  certificateItems,
  databaseItems,
  diskItems,
  failedMessagesItems,
  listenerFailedItem,
  mediatorOfflineItems,
  messagingItems,
  refusingChannelItems,
  searchIndexItems,
} from '../domain/operations/attention.js';
import type { ChannelRefusals, MessagingSetup } from '../domain/operations/attention.js';

/**
 * Whether email and SMS can be sent, and if not why. Today from the configuration (`email.*`, `sms.*`); the one
 * function to swap when those settings move into a store the console edits.
 */
export type MessagingCheck = () => MessagingSetup | Promise<MessagingSetup>;

/**
 * Refusals per channel since a time (epoch ms), from the refusal recorder (recorded-refusals.ts).
 */
export type RecentRefusals = (sinceMs: number) => Promise<ChannelRefusals[]>;

/** Everything the sources read. Functions for what belongs to later or swappable parts. */
export interface AttentionDeps {
  store: Pick<Store, 'channels' | 'contactGroups' | 'users' | 'clients' | 'notifications' | 'autoRetries' | 'mediators'>;
  messaging: MessagingCheck;
  recentRefusals: RecentRefusals;
  /** A tcp or tls channel's listener state (undefined when it has none). */
  listenerState: (channelId: string) => ChannelListener | undefined;
  /** The channel of a transaction (the auto-retry queue holds only transaction ids). */
  transactionChannel: (transactionId: string) => Promise<string | undefined>;
  mediatorOnline: (mediator: MediatorRecord) => boolean;
  /** The server certificate and the trusted CAs. */
  certificates: () => WatchedCertificate[];
  backups: () => Promise<BackupStatus>;
  disk: () => DiskSpace | undefined;
  /** The store's health: whether its database server answers. */
  storeHealth: () => StoreHealth;
  /** The search index (issue 37), the log it follows and this instance's indexer's last failure; nothing when off. */
  search: {
    enabled: boolean;
    index: Pick<SearchIndex, 'state'>;
    log: Pick<TransactionLog, 'lastFinishedSeq' | 'finishedAfter'>;
    lastError: () => string | undefined;
  };
  settings: {
    reportsEnabled: boolean;
    refusalWindowMinutes: number;
    failedMessagesHours: number;
    autoRetryQueueWarning: number;
    certificateWarningDays: number;
    searchBehindMinutes: number;
    searchBehindTransactions: number;
  };
}

/** The named parts of the list, each read on its own so one that fails does not hide the others. */
export const ATTENTION_SOURCES = ['messaging', 'failed messages', 'refusals', 'channel access', 'listeners', 'mediators', 'certificates', 'backups', 'disk space', 'database', 'auto retry', 'search index'] as const;
export type AttentionSourceName = (typeof ATTENTION_SOURCES)[number];

type Source = (deps: AttentionDeps, now: Date) => Promise<AttentionItem[]>;

const HOUR_MS = 3_600_000;
// The retry queue's oldest entries whose channels are named; a longer queue is counted, not read whole.
const RETRY_SAMPLE = 200;

async function messaging(deps: AttentionDeps): Promise<AttentionItem[]> {
  const setup = await deps.messaging();
  if (setup.email === null && setup.sms === null) return [];
  const { store } = deps;
  const [channels, groups, users] = await Promise.all([store.channels.find({ status: 'enabled' }), store.contactGroups.find({}), store.users.find({})]);
  const groupMethods = new Map<string, AlertMethod[]>(groups.map((g) => [g._id, g.users.map((u) => u.method)]));
  return messagingItems(setup, {
    alertRules: alertRulesByMethod(channels, groupMethods),
    reportReaders: deps.settings.reportsEnabled ? users.filter((u) => u.dailyReport === true || u.weeklyReport === true).length : 0,
    invites: users.filter((u) => u.passwordHash === null && u.tokenHash !== undefined).length,
    admins: users.filter((u) => u.groups.includes(ADMIN_GROUP)).length,
  });
}

async function failedMessages(deps: AttentionDeps, now: Date): Promise<AttentionItem[]> {
  const hours = deps.settings.failedMessagesHours;
  const filter = { status: 'failed', created: { $gte: new Date(now.getTime() - hours * HOUR_MS) } };
  const count = await deps.store.notifications.count(filter);
  if (count === 0) return [];
  const [last] = await deps.store.notifications.find(filter, { sort: { created: -1 }, limit: 1 });
  return failedMessagesItems({ count, lastError: last?.lastError }, hours);
}

async function refusals(deps: AttentionDeps, now: Date): Promise<AttentionItem[]> {
  const minutes = deps.settings.refusalWindowMinutes;
  return refusingChannelItems(await deps.recentRefusals(now.getTime() - minutes * 60_000), minutes);
}

async function channelAccess(deps: AttentionDeps): Promise<AttentionItem[]> {
  const [channels, clients] = await Promise.all([deps.store.channels.find({ status: 'enabled', authType: 'private' }), deps.store.clients.find({})]);
  return channels.flatMap((c) => {
    const why = nobodyAdmitted(c, clients);
    return why === null ? [] : [admitsNobodyItem(c, why)];
  });
}

async function listeners(deps: AttentionDeps): Promise<AttentionItem[]> {
  const channels = await deps.store.channels.find({ status: 'enabled', type: { $in: [...LISTENING_CHANNEL_TYPES] } });
  return channels.flatMap((c) => {
    const state = deps.listenerState(c._id);
    return state?.state === 'failed' ? [listenerFailedItem(c, state.port, state.error)] : [];
  });
}

async function mediators(deps: AttentionDeps, now: Date): Promise<AttentionItem[]> {
  const offline = (await deps.store.mediators.find({})).filter((m) => !deps.mediatorOnline(m));
  return mediatorOfflineItems(
    offline.map((m) => ({ urn: m.urn, name: m.name, lastHeartbeat: m._lastHeartbeat })),
    now,
  );
}

function certificates(deps: AttentionDeps, now: Date): Promise<AttentionItem[]> {
  return Promise.resolve(certificateItems(expiringCertificates(deps.certificates(), now, deps.settings.certificateWarningDays)));
}

async function backups(deps: AttentionDeps): Promise<AttentionItem[]> {
  return backupItems(await deps.backups());
}

function disk(deps: AttentionDeps): Promise<AttentionItem[]> {
  return Promise.resolve(diskItems(deps.disk()));
}

function database(deps: AttentionDeps): Promise<AttentionItem[]> {
  return Promise.resolve(databaseItems(deps.storeHealth().unreachable));
}

async function autoRetry(deps: AttentionDeps, now: Date): Promise<AttentionItem[]> {
  const queue = deps.store.autoRetries;
  const threshold = deps.settings.autoRetryQueueWarning;
  const count = await queue.count({});
  if (count < threshold) return [];
  const oldest = await queue.find({}, { sort: { queuedAt: 1 }, limit: RETRY_SAMPLE });
  const channelIds = new Set((await Promise.all(oldest.map((e) => deps.transactionChannel(e._id)))).filter((id) => id !== undefined));
  const channels = await deps.store.channels.find({ _id: { $in: [...channelIds] } });
  return autoRetryItems({ count, oldest: oldest[0]?.queuedAt ?? now, channels: channels.map((c) => ({ _id: c._id, name: c.name })) }, threshold, now);
}

/** The search index against the log's completed transactions: from what both store, so any instance can tell. */
async function searchIndex(deps: AttentionDeps, now: Date): Promise<AttentionItem[]> {
  const { search } = deps;
  if (!search.enabled) return [];
  const [state, last] = await Promise.all([search.index.state(), search.log.lastFinishedSeq()]);
  const pending = Math.max(0, last - state.finishedSeq);
  if (pending === 0) return [];
  const [oldest] = await search.log.finishedAfter(state.finishedSeq, 1);
  const lastError = search.lastError();
  const lag = { pending, ...(oldest === undefined ? {} : { oldestPendingAt: oldest.at }), ...(lastError === undefined ? {} : { lastError }) };
  return searchIndexItems(lag, now, { minutes: deps.settings.searchBehindMinutes, transactions: deps.settings.searchBehindTransactions });
}

/** Each source, by name: the table that makes the list. */
export const SOURCES: Record<AttentionSourceName, Source> = {
  messaging,
  'failed messages': failedMessages,
  refusals,
  'channel access': channelAccess,
  listeners,
  mediators,
  certificates,
  backups,
  'disk space': disk,
  database,
  'auto retry': autoRetry,
  'search index': searchIndex,
};
