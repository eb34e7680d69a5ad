/**
 * Alert decisions (issue 16 part 4, OPENHIM-FACTS.md 3): which transactions a channel's alert rule matches, whether
 * it fires for a window's counts, who receives it, and whether a recipient may be sent another now. Pure: the caller
 * reads the counts and previous sends, and passes `now`. The window itself is alert-window.ts's; the message
 * alert-message.ts's.
 */
import type { AlertMethod, AlertRecipient, Channel, ChannelAlert } from '../../contracts/channels.js';
import type { TransactionStatus } from '../transactions/transaction-status.js';
import { parseStatusPattern, statusMatches } from '../transactions/transaction-status.js';
import type { AlertWindow } from './alert-window.js';
import { MAX_CATCH_UP_MINUTES, startOfDay } from './alert-window.js';

// A status rule's `status` is the same pattern language as the transaction list's filter: `500` or `5xx`.
export { statusMatches };

export type AlertRule = Pick<ChannelAlert, 'condition' | 'status' | 'failureRate'>;

/** The parts of a channel the alert decisions read. */
export type AlertChannel = Pick<Channel, '_id' | 'name' | 'autoRetryEnabled' | 'autoRetryMaxAttempts'>;

/** What the decisions need to know of one transaction. */
export interface AlertTransaction {
  /** The status of the response to the client; unset when none was sent. */
  responseStatus?: number;
  /** How many automatic retries have been made (OpenHIM's `autoRetryAttempt`); unset or 0 before the first. */
  autoRetryAttempt?: number;
  status?: TransactionStatus;
  /** Flagged for another automatic retry (its last attempt failed). */
  autoRetry?: boolean;
}

/**
 * A channel's counts for one window, which the caller reads (from the metrics or the transaction log) for each rule:
 * - `total`: the channel's transactions that finished in the window;
 * - `matching`: those of them `transactionMatches` says the rule matches.
 * A rule with a failure rate reads the rate from these two, so they must be counts of the same window.
 */
export interface RuleCounts {
  total: number;
  matching: number;
}

/** True when the channel retries automatically with a limit and this transaction has had its last retry. */
export function reachedRetryMax(channel: Pick<AlertChannel, 'autoRetryEnabled' | 'autoRetryMaxAttempts'>, transaction: AlertTransaction): boolean {
  const max = channel.autoRetryMaxAttempts ?? 0;
  // 0 means unlimited (OpenHIM): such a channel never gives up, so it never reaches a maximum.
  return channel.autoRetryEnabled && max > 0 && (transaction.autoRetryAttempt ?? 0) >= max;
}

/**
 * True when a rule counts this transaction as a match: its response status, or its automatic retries used up while it
 * still fails (Failed, or still flagged for retry; OpenHIM's alert asks for status 500). The instant such a
 * transaction belongs to a window is when the auto-retry job gives up on it (its `transaction.autoRetryMaxAttempted`
 * event), not when it was received: that may be long before.
 */
export function transactionMatches(rule: AlertRule, channel: AlertChannel, transaction: AlertTransaction): boolean {
  // Refusals never became transactions: the alert job counts them from the refusal log.
  if (rule.condition === 'refusals') return false;
  if (rule.condition === 'auto-retry-max-attempted') return reachedRetryMax(channel, transaction) && (transaction.status === 'Failed' || transaction.autoRetry === true);
  if (rule.status === undefined || transaction.responseStatus === undefined) return false;
  return statusMatches(rule.status, transaction.responseStatus);
}

/** Why a rule can never fire (a status rule without a usable status, a failure rate outside 0-100), or null. */
export function ruleProblem(rule: AlertRule): string | null {
  if (rule.condition === 'auto-retry-max-attempted' || rule.condition === 'refusals') return null;
  if (rule.status === undefined || parseStatusPattern(rule.status) === null) return 'a status rule needs a status code such as 500 or a class such as 5xx';
  const rate = rule.failureRate;
  if (rate !== undefined && (!Number.isFinite(rate) || rate < 0 || rate > 100)) return 'failureRate is a percentage from 0 to 100';
  return null;
}

/**
 * True when the rule fires for a window's counts. Nothing matched: never. A status rule with a failure rate fires
 * only when the matching share of the window's transactions is strictly above it (OpenHIM fires at equal; the
 * channel editor says "above"); without one any match fires, as does an auto-retry rule.
 */
export function ruleFires(rule: AlertRule, counts: RuleCounts): boolean {
  if (ruleProblem(rule) !== null) return false;
  if (counts.matching <= 0) return false;
  if (rule.condition === 'auto-retry-max-attempted' || rule.failureRate === undefined) return true;
  if (counts.total <= 0) return false;
  // Compared as integers (matching × 100 against rate × total) so 1 of 5 at 20 % does not fire by rounding.
  return counts.matching * 100 > rule.failureRate * counts.total;
}

/** The percentage of the window's transactions that matched, to one decimal; 0 for an empty window. */
export function failureRateOf(counts: RuleCounts): number {
  if (counts.total <= 0) return 0;
  return Math.round((counts.matching * 1000) / counts.total) / 10;
}

/**
 * The key that identifies a rule in the records of sends: the channel and what the rule says, not its position in
 * the channel's list, so reordering rules keeps their history and changing one starts afresh.
 */
export function ruleKey(channelId: string, rule: AlertRule): string {
  if (rule.condition === 'auto-retry-max-attempted') return `${channelId}/auto-retry-max-attempted`;
  if (rule.condition === 'refusals') return `${channelId}/refusals`;
  const status = (rule.status ?? '').trim().toLowerCase();
  return rule.failureRate === undefined ? `${channelId}/status/${status}` : `${channelId}/status/${status}/over/${String(rule.failureRate)}`;
}

// ---- Recipients ----

/** A contact group as the recipients' expansion reads it (OpenHIM's `{group, users}`). */
export interface RecipientGroup {
  _id: string;
  group: string;
  users: readonly AlertRecipient[];
  /** Recipients who are not users: sent to their address as it is. */
  external?: readonly { address: string; method: AlertMethod; maxAlerts: AlertRecipient['maxAlerts'] }[];
}

/** A user as the expansion reads it: the address book. */
export interface RecipientUser {
  email: string;
  msisdn?: string | null;
}

/** One person to alert one way, with where to send it. */
export interface Recipient extends AlertRecipient {
  /** The email for `email`, the MSISDN for `sms`. */
  address: string;
}

/** A recipient the expansion left out, and why (the caller logs it or records a failed send). */
export interface SkippedRecipient {
  user: string;
  method?: AlertMethod;
  /** The contact group it came through, or the group id that could not be found. */
  group?: string;
  reason: string;
}

export interface ExpandedRecipients {
  recipients: Recipient[];
  skipped: SkippedRecipient[];
}

const FREQUENCY_RANK: Readonly<Record<AlertRecipient['maxAlerts'], number>> = { 'no max': 0, '1 per hour': 1, '1 per day': 2 };

/**
 * A rule's `users` and the users of its `groups` as one list, one entry per person and method (emails compared
 * without case). When a person is listed twice for one method with different `maxAlerts`, the more frequent wins:
 * one listing's cap should not silence another that asked to hear every time. People who are not users, SMS
 * recipients without a number and unknown groups are left out with a reason.
 */
export function expandRecipients(rule: Pick<ChannelAlert, 'users' | 'groups'>, groups: ReadonlyMap<string, RecipientGroup>, users: ReadonlyMap<string, RecipientUser>): ExpandedRecipients {
  const byKey = new Map<string, Recipient>();
  const skipped: SkippedRecipient[] = [];
  const usersByEmail = new Map<string, RecipientUser>();
  for (const user of users.values()) usersByEmail.set(user.email.toLowerCase(), user);

  const consider = (entry: AlertRecipient, group: string | undefined): void => {
    const email = entry.user.trim().toLowerCase();
    const user = usersByEmail.get(email);
    const from = group === undefined ? {} : { group };
    if (user === undefined) {
      skipped.push({ user: entry.user, method: entry.method, ...from, reason: `${entry.user} is not a user` });
      return;
    }
    let address: string;
    if (entry.method === 'sms') {
      const msisdn = (user.msisdn ?? '').trim();
      if (msisdn === '') {
        skipped.push({ user: user.email, method: 'sms', ...from, reason: `${user.email} has no mobile number (msisdn) for SMS alerts` });
        return;
      }
      address = msisdn;
    } else {
      address = user.email;
    }
    const key = `${email}\n${entry.method}`;
    const maxAlerts = FREQUENCY_RANK[entry.maxAlerts] === undefined ? 'no max' : entry.maxAlerts;
    const known = byKey.get(key);
    if (known === undefined) byKey.set(key, { user: user.email, method: entry.method, maxAlerts, address });
    else if (FREQUENCY_RANK[maxAlerts] < FREQUENCY_RANK[known.maxAlerts]) known.maxAlerts = maxAlerts;
  };

  for (const entry of rule.users) consider(entry, undefined);
  const seenGroups = new Set<string>();
  for (const id of rule.groups) {
    if (seenGroups.has(id)) continue;
    seenGroups.add(id);
    const group = groups.get(id);
    if (group === undefined) {
      skipped.push({ user: '', group: id, reason: `contact group ${id} does not exist` });
      continue;
    }
    for (const entry of group.users) consider(entry, group.group);
    // Keyed by address like users by email: an address listed as a user's and as external is alerted once.
    for (const entry of group.external ?? []) {
      const address = entry.address.trim();
      const key = `${address.toLowerCase()}\n${entry.method}`;
      const maxAlerts = FREQUENCY_RANK[entry.maxAlerts] === undefined ? 'no max' : entry.maxAlerts;
      const known = byKey.get(key);
      if (known === undefined) byKey.set(key, { user: address, method: entry.method, maxAlerts, address });
      else if (FREQUENCY_RANK[maxAlerts] < FREQUENCY_RANK[known.maxAlerts]) known.maxAlerts = maxAlerts;
    }
  }
  return { recipients: [...byKey.values()], skipped };
}

// ---- maxAlerts and de-duplication ----

/**
 * A record of one alert to one recipient, whatever became of it: what the de-duplication reads back (and what the
 * list of sent and failed alerts shows). The caller writes one for each recipient each time a rule fires.
 */
export interface AlertSend {
  ruleKey: string;
  /** The recipient's email. */
  user: string;
  method: AlertMethod;
  /**
   * `sent`: the server or gateway accepted it. `held`: `maxAlerts` held it back (mayAlert said no). `failed`: every
   * try failed. Only `sent` counts against `maxAlerts`; what was `held` or `failed` goes into the next message.
   */
  outcome: 'sent' | 'held' | 'failed';
  at: Date;
  /** The span of time whose transactions the message reported. */
  covered: AlertWindow;
  /** The transactions it reported. */
  transactionIds: readonly string[];
}

export type AlertGate = { allowed: true } | { allowed: false; reason: string; nextAllowedAt: Date };

const HOUR_MS = 3_600_000;

function recordsOf(recipient: Pick<Recipient, 'user' | 'method'>, key: string, previousSends: readonly AlertSend[]): AlertSend[] {
  const email = recipient.user.toLowerCase();
  return previousSends.filter((send) => send.ruleKey === key && send.method === recipient.method && send.user.toLowerCase() === email);
}

function sendsOf(recipient: Pick<Recipient, 'user' | 'method'>, key: string, previousSends: readonly AlertSend[]): AlertSend[] {
  return recordsOf(recipient, key, previousSends).filter((send) => send.outcome === 'sent');
}

function latest(sends: readonly AlertSend[]): AlertSend | undefined {
  let last: AlertSend | undefined;
  for (const send of sends) if (last === undefined || send.at.getTime() > last.at.getTime()) last = send;
  return last;
}

/**
 * Whether a recipient may be sent another alert for a rule now, following OpenHIM's gates (3.5): `no max` always;
 * `1 per hour` not when one was sent in the last 60 minutes (rolling); `1 per day` not when one was sent since the
 * start of today (calendar day) in `timeZone`, the configured zone rather than OpenHIM's server-local day. Only
 * sends that went out count; a failed one does not use up the allowance.
 */
export function mayAlert(recipient: Pick<Recipient, 'user' | 'method' | 'maxAlerts'>, key: string, previousSends: readonly AlertSend[], now: Date, timeZone: string): AlertGate {
  if (recipient.maxAlerts !== '1 per hour' && recipient.maxAlerts !== '1 per day') return { allowed: true };
  const hourly = recipient.maxAlerts === '1 per hour';
  const nowMs = now.getTime();
  // A send exactly an hour ago no longer counts; one exactly at midnight is today's.
  const counts = hourly ? (at: number) => at > nowMs - HOUR_MS : (at: number) => at >= startOfDay(now, timeZone).getTime();
  const last = latest(sendsOf(recipient, key, previousSends).filter((send) => counts(send.at.getTime()) && send.at.getTime() <= nowMs));
  if (last === undefined) return { allowed: true };
  const nextAllowedAt = hourly ? new Date(last.at.getTime() + HOUR_MS) : startOfDay(new Date(startOfDay(now, timeZone).getTime() + 26 * HOUR_MS), timeZone);
  return { allowed: false, reason: `${recipient.user} was already alerted by ${recipient.method} at ${last.at.toISOString()} and the limit is ${recipient.maxAlerts}`, nextAllowedAt };
}

/**
 * The span a recipient's message reports: the run's window, reaching back over the windows since their last sent
 * message that were held back from them (`held` by `maxAlerts`, or `failed` for good), never further than
 * MAX_CATCH_UP_MINUTES. So the next message also reports what they did not hear about, and nothing twice.
 */
export function reportSpan(recipient: Pick<Recipient, 'user' | 'method'>, key: string, previousSends: readonly AlertSend[], window: AlertWindow): AlertWindow {
  const mine = recordsOf(recipient, key, previousSends).filter((send) => send.covered.to.getTime() <= window.to.getTime());
  const lastSentEnd = mine.reduce((end, send) => (send.outcome === 'sent' ? Math.max(end, send.covered.to.getTime()) : end), Number.NEGATIVE_INFINITY);
  let from = window.from.getTime();
  for (const send of mine) {
    if (send.outcome !== 'sent' && send.covered.from.getTime() >= lastSentEnd) from = Math.min(from, send.covered.from.getTime());
  }
  from = Math.max(from, window.to.getTime() - MAX_CATCH_UP_MINUTES * 60_000);
  return from === window.from.getTime() ? window : { from: new Date(Math.min(from, window.from.getTime())), to: window.to };
}

/** The transactions of a list that no earlier message of this rule to this recipient reported, in their order. */
export function notYetAlerted(transactionIds: readonly string[], recipient: Pick<Recipient, 'user' | 'method'>, key: string, previousSends: readonly AlertSend[]): string[] {
  const reported = new Set<string>();
  for (const send of sendsOf(recipient, key, previousSends)) for (const id of send.transactionIds) reported.add(id);
  return [...new Set(transactionIds)].filter((id) => !reported.has(id));
}
