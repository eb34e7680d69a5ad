/**
 * The "needs attention" list's decisions (issue 35): from the facts each source gathered (service/attention/), which
 * items to show, how bad each is, the sentence and where it is fixed; then the order and who sees which. Pure: no
 * I/O, the clock passed in.
 */
import type { AttentionItem, AttentionSeverity } from '../../contracts/attention.js';
import { ATTENTION_SEVERITIES } from '../../contracts/attention.js';
import type { AlertMethod, ChannelAlert } from '../../contracts/channels.js';
import type { DiskSpace } from '../../contracts/api.js';
import type { BackupStatus } from '../../contracts/backup.js';
import type { ExpiringCertificate } from '../alerts/certificate-expiry.js';

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;
const MINUTE_MS = 60_000;

function agoText(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / MINUTE_MS));
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return plural(hours, 'hour');
  return plural(Math.floor(hours / 24), 'day');
}

function sentenceList(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1) ?? ''}`;
}

// ---- email and SMS ----

/** Channel alert rules on enabled channels, as the messaging check reads them. */
export interface AlertingChannel {
  status: string;
  alerts: readonly Pick<ChannelAlert, 'users' | 'groups'>[];
}

/** How many alert rules would send by each method (a rule counts once per method its users or groups' members use). */
export function alertRulesByMethod(channels: readonly AlertingChannel[], groupMethods: ReadonlyMap<string, readonly AlertMethod[]>): Record<AlertMethod, number> {
  const counts: Record<AlertMethod, number> = { email: 0, sms: 0 };
  for (const channel of channels) {
    if (channel.status !== 'enabled') continue;
    for (const alert of channel.alerts) {
      const methods = new Set<AlertMethod>(alert.users.map((u) => u.method));
      for (const group of alert.groups) for (const method of groupMethods.get(group) ?? []) methods.add(method);
      for (const method of methods) counts[method] += 1;
    }
  }
  return counts;
}

/** What would send email or SMS, gathered from the store. */
export interface MessagingUses {
  alertRules: Record<AlertMethod, number>;
  /** Users who get the daily or weekly report (by email), when reports are enabled. */
  reportReaders: number;
  /** Users invited and waiting for their set-password link. */
  invites: number;
  /** Admins, who get the disk and certificate warnings by email. */
  admins: number;
}

/** Why email and SMS cannot be sent (the settings that are missing), or null when they are set up. */
export interface MessagingSetup {
  email: string | null;
  sms: string | null;
}

/** Email or SMS not set up while something would send by it. */
export function messagingItems(setup: MessagingSetup, uses: MessagingUses): AttentionItem[] {
  const items: AttentionItem[] = [];
  if (setup.email !== null) {
    const users = [
      uses.alertRules.email > 0 ? plural(uses.alertRules.email, 'channel alert rule') : '',
      uses.reportReaders > 0 ? `reports to ${plural(uses.reportReaders, 'user')}` : '',
      uses.invites > 0 ? plural(uses.invites, 'set-password invite') : '',
      uses.admins > 0 ? 'disk and certificate warnings to admins' : '',
    ].filter((p) => p !== '');
    if (users.length > 0) {
      items.push({
        kind: 'email-not-set-up',
        severity: uses.alertRules.email > 0 || uses.invites > 0 ? 'error' : 'warning',
        message: `Email is not set up (${setup.email}), so ${sentenceList(users)} cannot be sent.`,
        fix: { path: '/settings', setting: 'email.smtp.host' },
      });
    }
  }
  if (setup.sms !== null && uses.alertRules.sms > 0) {
    items.push({
      kind: 'sms-not-set-up',
      severity: 'error',
      message: `SMS is not set up (${setup.sms}), so ${plural(uses.alertRules.sms, 'channel alert rule')} that send by SMS cannot be sent.`,
      fix: { path: '/settings', setting: 'sms.gatewayUrl' },
    });
  }
  return items;
}

// ---- messages that failed ----

export interface FailedMessages {
  count: number;
  /** The newest failure's reason. */
  lastError?: string | undefined;
}

export function failedMessagesItems(failed: FailedMessages, sinceHours: number): AttentionItem[] {
  if (failed.count === 0) return [];
  const why = failed.lastError === undefined ? '' : `; the last failed with: ${failed.lastError}`;
  return [
    {
      kind: 'messages-failed',
      severity: 'error',
      message: `${plural(failed.count, 'message')} to people (alerts, reports, links) failed to send in the last ${plural(sinceHours, 'hour')}${why}.`,
      fix: { path: '/notifications' },
      count: failed.count,
    },
  ];
}

// ---- channels ----

/** Refusals on one channel over the window, as the refusal source counts them. */
export interface ChannelRefusals {
  channel: { _id: string; name: string } | { name: string };
  count: number;
  lastReason: string;
}

export function refusingChannelItems(refusals: readonly ChannelRefusals[], sinceMinutes: number): AttentionItem[] {
  return refusals
    .filter((r) => r.count > 0)
    .map((r) => ({
      kind: 'channel-refusing' as const,
      severity: 'warning' as const,
      message: `Channel ${r.channel.name} refused ${plural(r.count, 'request or message', 'requests or messages')} in the last ${plural(sinceMinutes, 'minute')} (last reason: ${r.lastReason}).`,
      fix: '_id' in r.channel ? { path: `/channels/${r.channel._id}` } : { path: '/channels' },
      ...('_id' in r.channel ? { channel: { _id: r.channel._id, name: r.channel.name } } : {}),
      count: r.count,
    }));
}

export function admitsNobodyItem(channel: { _id: string; name: string }, why: string): AttentionItem {
  return {
    kind: 'channel-admits-nobody',
    severity: 'warning',
    message: `Channel ${channel.name} admits nobody: ${why}.`,
    fix: { path: `/channels/${channel._id}` },
    channel: { _id: channel._id, name: channel.name },
  };
}

export function listenerFailedItem(channel: { _id: string; name: string }, port: number, error: string | undefined): AttentionItem {
  return {
    kind: 'listener-failed',
    severity: 'error',
    message: `Channel ${channel.name} cannot listen on port ${port}${error === undefined ? '' : `: ${error}`}.`,
    fix: { path: `/channels/${channel._id}` },
    channel: { _id: channel._id, name: channel.name },
  };
}

// ---- mediators ----

export function mediatorOfflineItems(mediators: readonly { urn: string; name: string; lastHeartbeat?: Date | undefined }[], now: Date): AttentionItem[] {
  return mediators.map((m) => ({
    kind: 'mediator-offline' as const,
    severity: 'warning' as const,
    message: m.lastHeartbeat === undefined ? `Mediator ${m.name} has never sent a heartbeat.` : `Mediator ${m.name} is offline: its last heartbeat was ${agoText(now.getTime() - m.lastHeartbeat.getTime())} ago.`,
    fix: { path: `/mediators/${encodeURIComponent(m.urn)}` },
  }));
}

// ---- certificates ----

export function certificateItems(expiring: readonly ExpiringCertificate[]): AttentionItem[] {
  return expiring.map((c) => {
    const name = c.commonName === '' ? c.fingerprint256.slice(0, 17) : `"${c.commonName}"`;
    const date = c.validTo.toISOString().slice(0, 10);
    const when = c.daysLeft < 0 ? `expired on ${date}` : c.daysLeft === 0 ? `expires today (${date})` : `expires in ${plural(c.daysLeft, 'day')} (${date})`;
    return {
      kind: 'certificate-expiring' as const,
      severity: c.daysLeft < 0 || c.daysLeft <= 7 ? ('error' as const) : ('warning' as const),
      message: `The ${c.role} certificate ${name} ${when}.`,
      fix: { path: '/certificates', setting: 'keystore.expiryWarningDays' },
    };
  });
}

// ---- backups ----

export function backupItems(status: Pick<BackupStatus, 'schedule' | 'last'>): AttentionItem[] {
  const items: AttentionItem[] = [];
  if (!status.schedule.enabled) {
    items.push({ kind: 'backups-off', severity: 'info', message: 'Scheduled backups are off: nothing is copied unless someone downloads a backup.', fix: { path: '/backup', setting: 'backup.folder' } });
  }
  if (status.last?.outcome === 'failed') {
    items.push({
      kind: 'backup-failed',
      severity: 'error',
      message: `The last ${status.last.trigger === 'schedule' ? 'scheduled ' : ''}backup failed${status.last.error === undefined ? '' : `: ${status.last.error}`}.`,
      fix: { path: '/backup', setting: 'backup.folder' },
    });
  }
  return items;
}

// ---- disk ----

export function diskItems(space: DiskSpace | undefined): AttentionItem[] {
  if (space === undefined || space.level === 'ok') return [];
  const mib = (bytes: number) => `${Math.floor(bytes / (1024 * 1024))} MB`;
  const refusing = space.refusing ? ' New transactions are refused until space is freed.' : '';
  return [
    {
      kind: 'disk-low',
      severity: space.level === 'critical' ? 'error' : 'warning',
      message: `The data folder's disk has ${mib(space.freeBytes)} free, below the ${space.level === 'critical' ? `floor of ${mib(space.floorBytes)}` : `warning level of ${mib(space.warningBytes)}`}.${refusing}`,
      fix: { path: '/about', setting: space.level === 'critical' ? 'storage.disk.floorMB' : 'storage.disk.warningMB' },
    },
  ];
}

// ---- search index ----

/** Where the search indexer stands against the log's completed transactions (issue 37). */
export interface SearchIndexLag {
  /** Completed transactions not indexed yet (the log's feed position less the index's). */
  pending: number;
  /** When the oldest of them completed; unknown when the feed no longer holds it. */
  oldestPendingAt?: Date;
  /** This instance's indexer's last failure, when it runs here and failed. */
  lastError?: string;
}

/** When the index counts as behind (`attention.searchBehindMinutes`, `attention.searchBehindTransactions`). */
export interface SearchBehindThresholds {
  /** The oldest unindexed completion older than this: the index is lagging, not just busy. */
  minutes: number;
  /** Or more transactions than this waiting, however recent. */
  transactions: number;
}

/**
 * The search index behind the log by more than the thresholds' minutes or transactions: support staff's searches
 * miss the newest messages. An error when the indexer says it fails, a warning when it only lags.
 */
export function searchIndexItems(lag: SearchIndexLag, now: Date, behind: SearchBehindThresholds): AttentionItem[] {
  if (lag.pending <= 0) return [];
  const behindMs = lag.oldestPendingAt === undefined ? 0 : now.getTime() - lag.oldestPendingAt.getTime();
  if (behindMs <= behind.minutes * 60_000 && lag.pending <= behind.transactions) return [];
  const count = lag.pending.toLocaleString('en');
  const since = lag.oldestPendingAt === undefined ? '' : ` completed since ${lag.oldestPendingAt.toISOString()} (${Math.max(1, Math.round(behindMs / 60_000))} minutes ago)`;
  const why = lag.lastError === undefined
    ? ' Indexing is not keeping up or not running: check the server log (component "search") and that an instance runs the search-index job.'
    : ` Indexing fails: ${lag.lastError}. Fix what the error names (often the database); indexing resumes by itself.`;
  return [
    {
      kind: 'search-index-behind',
      severity: lag.lastError === undefined ? 'warning' : 'error',
      message: `Search indexing is ${count} transaction${lag.pending === 1 ? '' : 's'} behind: searches by patient ID, order number or text do not find the messages${since}, though the list still shows them.${why}`,
      fix: { path: '/transactions', setting: 'search.enabled' },
      count: lag.pending,
    },
  ];
}

// ---- database ----

/** The PostgreSQL server has not answered since `since` (ISO 8601): every transaction is refused meanwhile. */
export function databaseItems(unreachable: { since: string; error: string } | undefined): AttentionItem[] {
  if (unreachable === undefined) return [];
  return [
    {
      kind: 'database-unreachable',
      severity: 'error',
      message:
        `The PostgreSQL database has not answered since ${unreachable.since} (${unreachable.error}). ` +
        'Senders are refused (503 STORE_UNAVAILABLE, or an AR/CR ACK) and should send again; Junction reconnects by itself when the database is back.',
      fix: { setting: 'storage.postgres.url' },
    },
  ];
}

// ---- auto retry ----

/** The transactions waiting for auto retry, with the channels of the oldest of them. */
export interface RetryQueue {
  count: number;
  oldest: Date;
  channels: readonly { _id: string; name: string }[];
}

/** The auto-retry queue at or above `threshold` transactions: routes are not answering and the queue grows. */
export function autoRetryItems(queue: RetryQueue, threshold: number, now: Date): AttentionItem[] {
  if (queue.count < threshold) return [];
  const names = queue.channels.map((c) => c.name);
  const on = names.length === 0 ? '' : ` on ${names.length === 1 ? 'channel' : 'channels'} ${sentenceList(names)}`;
  const only = queue.channels.length === 1 ? queue.channels[0] : undefined;
  return [
    {
      kind: 'auto-retry-growing',
      severity: 'warning',
      message: `${plural(queue.count, 'transaction')}${on} wait for auto retry, the oldest for ${agoText(now.getTime() - queue.oldest.getTime())}: their routes are not answering.`,
      fix: { path: only === undefined ? '/transactions' : `/channels/${only._id}`, setting: 'attention.autoRetryQueueWarning' },
      ...(only === undefined ? {} : { channel: { _id: only._id, name: only.name } }),
      count: queue.count,
    },
  ];
}

// ---- a source that could not be read ----

export function checkFailedItem(what: string, error: string): AttentionItem {
  return { kind: 'check-failed', severity: 'warning', message: `Junction could not check ${what}: ${error}.`, fix: { path: '/logs' } };
}

// ---- order and audience ----

/** Worst first; within a severity, the sources' order is kept. */
export function worstFirst(items: readonly AttentionItem[]): AttentionItem[] {
  const rank = (s: AttentionSeverity) => ATTENTION_SEVERITIES.indexOf(s);
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => rank(a.item.severity) - rank(b.item.severity) || a.index - b.index)
    .map(({ item }) => item);
}

/**
 * What a viewer sees: admins everything; other users only the items about a channel they may view (its refusals,
 * its listener, its access rules), which they can pass on to its senders or an admin. Settings, certificates, the
 * disk and backups are fixed by admins only, and are not shown to others.
 */
export function visibleItems(items: readonly AttentionItem[], viewer: { admin: boolean; mayViewChannel: (channelId: string) => boolean }): AttentionItem[] {
  if (viewer.admin) return [...items];
  return items.filter((item) => item.channel !== undefined && viewer.mayViewChannel(item.channel._id));
}
