/**
 * The alert job (issue 16 part 4, OPENHIM-FACTS.md 3.3): every `alerts.pollPeriodMinutes` it reads the transactions
 * that reached a final status since its last run, judges each enabled channel's alert rules on them, and records one
 * message per recipient in the outbox, which delivers it. The decisions are domain/alert-*.ts's; this file reads,
 * counts and records.
 *
 * Exactness: the job keeps a cursor into the log's finished entries (`seq`, in commit order) and the end of its last
 * window, saved in `jobStates` under `alerts`. A run reads the entries after the cursor that were committed before its
 * `now` and stops at the first later one, which waits for the next run; the cursor moves to the last entry read. So
 * every finished transaction is read by exactly one run, however runs are spaced, restarted or delayed, and whatever
 * the clock does. The state is saved after the messages are recorded: a crash in between re-reads the same entries at
 * the next run, and the records already written keep anyone from hearing of the same transactions twice
 * (`notYetAlerted` for messages, `notYetRecorded` for held and failed records).
 */
import type { Logger } from 'pino';
import type { ChannelAlert } from '../contracts/channels.js';
import type { AlertRule, RecipientGroup, RecipientUser, Recipient, SkippedRecipient } from '../domain/alerts/alert-rules.js';
import { expandRecipients, failureRateOf, mayAlert, notYetAlerted, reportSpan, ruleFires, ruleKey, ruleProblem, transactionMatches } from '../domain/alerts/alert-rules.js';
import type { AlertWindow } from '../domain/alerts/alert-window.js';
import { MAX_CATCH_UP_MINUTES, isEmptyWindow, nextWindow } from '../domain/alerts/alert-window.js';
import { alertMessage } from '../domain/alerts/alert-message.js';
import type { OutgoingMessage } from '../notify/outbox.js';
import type { ChannelRecord, ContactGroupRecord, JobStateRecord, NotificationAlertRecord, NotificationRecord, UserRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { FinishedTransaction } from '../storage/transactions.js';
import { heldBack, notYetRecorded, previousSends } from './previous-sends.js';
import type { TransactionStatus } from '../domain/transactions/transaction-status.js';
import type { RateHistory } from './rate-history.js';
import { addToHistory, countsOver, minuteOf, parseHistory, rateSpan } from './rate-history.js';

/** The `jobStates` name of the job's saved state, and the job's name in the registry. */
export const ALERT_JOB_NAME = 'alerts';
/** Finished entries read per query. */
export const READ_BATCH = 1000;

export interface AlertJobDeps {
  log: { finishedAfter(afterSeq: number, limit: number): Promise<FinishedTransaction[]> };
  /** Refusals per channel over whole minutes [from, to) (refused/recorder.ts), for `refusals` rules (issue 35). */
  refusals?: { countsByChannel(from: number, to: number): Promise<readonly { channelId: string; count: number }[]> };
  channels: Collection<ChannelRecord>;
  users: Collection<UserRecord>;
  contactGroups: Collection<ContactGroupRecord>;
  notifications: Collection<NotificationRecord>;
  jobStates: Collection<JobStateRecord>;
  outbox: { enqueue(messages: readonly OutgoingMessage[]): Promise<NotificationRecord[]> };
  pollPeriodMinutes: number;
  /** Milliseconds in one minute of `pollPeriodMinutes` (`alerts.minuteMs`): only tests shorten it. */
  minuteMs?: number;
  /** The IANA zone times are shown in and `1 per day` is counted in (the `timeZone` setting). */
  timeZone: string;
  /** Which Junction this is in messages (`alerts.himInstance`). */
  instance: string;
  /** The console's address for links: `alerts.consoleURL`, or the management API's own address when that is empty. */
  consoleUrl: () => string;
  /** The timeout of channels without their own, in ms: how long before its end a counted request may have arrived. */
  defaultTimeoutMs: number;
  logger: Logger;
  now?: () => Date;
}

/** What the job keeps between runs. */
interface AlertJobState {
  lastEnd?: Date;
  lastSeq: number;
  /** Per failure-rate rule (by ruleKey): its last hour's counts. */
  rates: Record<string, RateHistory>;
}

/** One run's matches of one rule. */
interface RuleMatches {
  rule: ChannelAlert;
  key: string;
  /** Matching transaction ids in commit order. */
  ids: string[];
  /** The status each of `ids` ended in, so the message says what became of them. */
  statuses: Map<string, TransactionStatus>;
  /** Per minute of commit time: the channel's finished transactions and the rule's matches (failure-rate rules). */
  minutes: Map<number, { total: number; matching: number }>;
  /** A `refusals` rule: the channel's refusals in the run's whole minutes. */
  refused?: number;
}

/** How many of `ids` ended in each status, of those whose status this run read (held-back ones are from earlier runs). */
function statusCounts(ids: readonly string[], statuses: ReadonlyMap<string, TransactionStatus>): Partial<Record<TransactionStatus, number>> {
  const counts: Partial<Record<TransactionStatus, number>> = {};
  for (const id of ids) {
    const status = statuses.get(id);
    if (status !== undefined) counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

/** The job for the scheduler registry (a `ScheduledJob`): runs at start, then every `pollPeriodMinutes`. */
export function alertJob(deps: AlertJobDeps): { name: string; everyMs: number; runAtStart: boolean; run: () => Promise<void> } {
  const job = new AlertJob(deps);
  return { name: ALERT_JOB_NAME, everyMs: deps.pollPeriodMinutes * (deps.minuteMs ?? 60_000), runAtStart: true, run: () => job.run() };
}

/** Evaluates every enabled channel's alert rules over the transactions finished since the last run. */
export class AlertJob {
  readonly #deps: AlertJobDeps;
  readonly #now: () => Date;

  constructor(deps: AlertJobDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** One run: read, judge, record the messages, then save the cursor. */
  async run(): Promise<void> {
    const { logger } = this.#deps;
    const now = this.#now();
    const state = await this.#loadState();
    const window = nextWindow(state.lastEnd, now, this.#deps.pollPeriodMinutes);
    // The clock went back behind the last run's end: nothing to read until it passes that end again.
    if (isEmptyWindow(window)) return;
    if (window.skipped !== undefined) {
      logger.warn({ from: window.skipped.from, to: window.skipped.to }, `alerts were not evaluated for more than ${String(MAX_CATCH_UP_MINUTES / 60)} hours; transactions that finished before ${window.from.toISOString()} are not alerted`);
    }

    const channels = new Map<string, { channel: ChannelRecord; rules: RuleMatches[] }>();
    for (const channel of await this.#deps.channels.find({ status: 'enabled' })) {
      const rules: RuleMatches[] = [];
      for (const rule of channel.alerts) {
        const problem = ruleProblem(rule);
        if (problem !== null) {
          logger.warn({ channel: channel.name, rule }, `an alert rule is skipped: ${problem}`);
          continue;
        }
        rules.push({ rule, key: ruleKey(channel._id, rule), ids: [], statuses: new Map(), minutes: new Map() });
      }
      if (rules.length > 0) channels.set(channel._id, { channel, rules });
    }

    // The first run, and one after an outage longer than the catch-up, start at the window: older entries are passed
    // over. Otherwise an entry from before the window is still evaluated: the last run did not read it, so its time
    // is only off because the clock was stepped back.
    const passOverBefore = state.lastEnd === undefined || window.skipped !== undefined ? window.from.getTime() : Number.NEGATIVE_INFINITY;
    const lastSeq = await this.#read(state.lastSeq, window, passOverBefore, (entry) => {
      const found = channels.get(entry.channelID);
      if (found === undefined) return;
      const minute = minuteOf(entry.at);
      for (const matches of found.rules) {
        const hit = transactionMatches(matches.rule, found.channel, entry);
        if (hit) {
          matches.ids.push(entry.id);
          matches.statuses.set(entry.id, entry.status);
        }
        if (matches.rule.failureRate === undefined) continue;
        const counts = matches.minutes.get(minute) ?? { total: 0, matching: 0 };
        counts.total += 1;
        if (hit) counts.matching += 1;
        matches.minutes.set(minute, counts);
      }
    });

    await this.#countRefusals(channels, window);

    const rates: Record<string, RateHistory> = {};
    const messages: OutgoingMessage[] = [];
    const directory = new Directory(this.#deps);
    for (const { channel, rules } of channels.values()) {
      for (const matches of rules) {
        const { rule, key, ids } = matches;
        let rate: { counts: { total: number; matching: number }; span: AlertWindow } | undefined;
        if (rule.failureRate !== undefined) {
          const history = addToHistory(state.rates[key], window, matches.minutes);
          rates[key] = history;
          rate = { counts: countsOver(history, window), span: rateSpan(history, window) };
        }
        // A rule fires on new matches in this window; a failure-rate rule only while its last hour is above the rate.
        if (ids.length === 0) continue;
        if (!ruleFires(rule, rate?.counts ?? { total: ids.length, matching: ids.length })) continue;
        messages.push(...(await this.#messagesFor(channel, matches, window, now, directory, rate)));
      }
    }

    if (messages.length > 0) await this.#deps.outbox.enqueue(messages);
    // Saved only after the messages are recorded (see the file's comment for why a crash here alerts no one twice).
    await this.#saveState({ lastEnd: window.to, lastSeq, rates }, now);
  }

  /**
   * Gives each `refusals` rule its channel's refusals in the window's whole minutes, and one stand-in id for the
   * window, so the de-duplication and `maxAlerts` treat a window of refusals as one event. Consecutive windows tile
   * minute by minute (a minute is counted by the run whose window reaches past its end), so none is counted twice.
   */
  async #countRefusals(channels: ReadonlyMap<string, { rules: RuleMatches[] }>, window: AlertWindow): Promise<void> {
    const wanting = [...channels.values()].flatMap((c) => c.rules).filter((m) => m.rule.condition === 'refusals');
    if (wanting.length === 0 || this.#deps.refusals === undefined) return;
    const from = minuteStart(window.from.getTime());
    const to = minuteStart(window.to.getTime());
    if (to <= from) return;
    const counts = new Map((await this.#deps.refusals.countsByChannel(from, to)).map((c) => [c.channelId, c.count]));
    for (const [channelId, { rules }] of channels) {
      const count = counts.get(channelId) ?? 0;
      if (count === 0) continue;
      for (const matches of rules) {
        if (matches.rule.condition !== 'refusals') continue;
        matches.refused = count;
        matches.ids.push(`refusals:${channelId}:${new Date(to).toISOString()}`);
      }
    }
  }

  /**
   * Reads the finished entries after `afterSeq` committed before the window's end, in commit order, and returns the
   * cursor: the last entry read. Entries older than the window (after a long outage) are passed over.
   */
  async #read(afterSeq: number, window: AlertWindow, passOverBefore: number, each: (entry: FinishedTransaction) => void): Promise<number> {
    let cursor = afterSeq;
    let passedOver = 0;
    for (;;) {
      const batch = await this.#deps.log.finishedAfter(cursor, READ_BATCH);
      for (const entry of batch) {
        // Committed at or after this run's now: the next run's. Stopping here, not skipping, keeps commit order.
        if (entry.at.getTime() >= window.to.getTime()) return cursor;
        cursor = entry.seq;
        // Named again for the search index after a later write: its outcome was evaluated when it first finished.
        if (entry.changed === true) continue;
        if (entry.at.getTime() < passOverBefore) passedOver += 1;
        else each(entry);
      }
      if (batch.length < READ_BATCH) break;
    }
    if (passedOver > 0) this.#deps.logger.info({ transactions: passedOver, before: new Date(passOverBefore) }, 'transactions that finished before the alert window were not evaluated');
    return cursor;
  }

  /** The messages (and held and failed records) of a rule that fired. */
  async #messagesFor(
    channel: ChannelRecord,
    matches: RuleMatches,
    window: AlertWindow,
    now: Date,
    directory: Directory,
    rate: { counts: { total: number; matching: number }; span: AlertWindow } | undefined,
  ): Promise<OutgoingMessage[]> {
    const { rule, key, ids } = matches;
    const { recipients, skipped } = expandRecipients(rule, await directory.groups(), await directory.users());
    const sends = await previousSends(this.#deps.notifications, key, now);
    const out: OutgoingMessage[] = [];
    const alertOf = (reported: readonly string[], span: AlertWindow, count: number): NotificationAlertRecord => ({
      channelID: channel._id,
      channelName: channel.name,
      ruleKey: key,
      condition: rule.condition,
      ...(rule.condition === 'status' && rule.status !== undefined ? { status: rule.status } : {}),
      ...(rule.failureRate === undefined ? {} : { failureRate: rule.failureRate }),
      window: { from: span.from, to: span.to },
      count,
      transactionIds: [...reported],
    });

    for (const recipient of recipients) {
      const span = reportSpan(recipient, key, sends, window);
      const fresh = notYetAlerted([...heldBack(sends, recipient.user, recipient.method, span), ...ids], recipient, key, sends);
      // Everything was already reported to them: this window was evaluated before, and the run stopped before saving.
      if (fresh.length === 0) continue;
      const gate = mayAlert(recipient, key, sends, now, this.#deps.timeZone);
      if (!gate.allowed) {
        const unrecorded = notYetRecorded(fresh, sends, recipient.user, recipient.method);
        if (unrecorded.length === 0) continue;
        out.push(this.#recordOnly(recipient, rule, channel, { status: 'held', error: `${gate.reason}; next allowed at ${gate.nextAllowedAt.toISOString()}` }, alertOf(unrecorded, window, unrecorded.length)));
        continue;
      }
      // A failure-rate message reports its hour's counts; the others the transactions it names.
      const shown = rate === undefined ? { window: span, count: matches.refused ?? fresh.length } : { window: rate.span, count: rate.counts.matching };
      const message = alertMessage({
        rule,
        channel,
        window: shown.window,
        count: shown.count,
        ...(rate === undefined ? {} : { failureRate: failureRateOf(rate.counts), total: rate.counts.total }),
        statuses: statusCounts(rate === undefined ? fresh : ids, matches.statuses),
        transactionIds: matches.refused === undefined ? fresh : [],
        consoleUrl: this.#deps.consoleUrl(),
        timeZone: this.#deps.timeZone,
        instance: this.#deps.instance,
        requestLeadMs: channel.timeout ?? this.#deps.defaultTimeoutMs,
      });
      out.push({
        kind: 'alert',
        method: recipient.method,
        to: recipient.address,
        user: recipient.user,
        subject: message.subject,
        ...(recipient.method === 'sms' ? { sms: message.sms } : { text: message.text, html: message.html }),
        alert: alertOf(fresh, shown.window, shown.count),
      });
    }

    // People who cannot be reached are recorded as failed with the reason, once per transaction, never left out silently.
    const seen = new Set<string>();
    for (const miss of skipped) {
      const who = `${miss.user.toLowerCase()}\n${miss.method ?? ''}\n${miss.user === '' ? (miss.group ?? '') : ''}`;
      if (seen.has(who)) continue;
      seen.add(who);
      const unrecorded = notYetRecorded(ids, sends, miss.user, miss.method);
      if (unrecorded.length === 0) continue;
      out.push(this.#recordOnly(miss, rule, channel, { status: 'failed', error: miss.reason }, alertOf(unrecorded, window, unrecorded.length)));
    }
    return out;
  }

  /** A record of an alert that is not sent: held back by `maxAlerts`, or undeliverable (`error` says why). */
  #recordOnly(
    who: Pick<Recipient, 'user' | 'method'> & { address?: string } | SkippedRecipient,
    rule: AlertRule,
    channel: ChannelRecord,
    outcome: { status: 'held' | 'failed'; error: string },
    alert: NotificationAlertRecord,
  ): OutgoingMessage {
    const address = 'address' in who && who.address !== undefined ? who.address : who.method === 'sms' ? '' : who.user;
    const message = alertMessage({ rule, channel, window: { from: alert.window.from, to: alert.window.to }, count: alert.count, transactionIds: [], consoleUrl: this.#deps.consoleUrl(), timeZone: this.#deps.timeZone, instance: this.#deps.instance });
    return {
      kind: 'alert',
      method: who.method ?? 'email',
      to: address,
      ...(who.user === '' ? {} : { user: who.user }),
      subject: message.subject,
      alert,
      outcome,
    };
  }

  async #loadState(): Promise<AlertJobState> {
    const record = await this.#deps.jobStates.findOne({ name: ALERT_JOB_NAME });
    const data = record?.data ?? {};
    const lastEnd = typeof data.lastEnd === 'string' ? new Date(data.lastEnd) : undefined;
    const lastSeq = typeof data.lastSeq === 'number' && Number.isSafeInteger(data.lastSeq) && data.lastSeq >= 0 ? data.lastSeq : 0;
    const rates: Record<string, RateHistory> = {};
    if (typeof data.rates === 'object' && data.rates !== null) {
      for (const [key, value] of Object.entries(data.rates as Record<string, unknown>)) {
        const history = parseHistory(value);
        if (history !== undefined) rates[key] = history;
      }
    }
    return { ...(lastEnd === undefined || Number.isNaN(lastEnd.getTime()) ? {} : { lastEnd }), lastSeq, rates };
  }

  async #saveState(state: AlertJobState, now: Date): Promise<void> {
    const data = { lastEnd: state.lastEnd?.toISOString(), lastSeq: state.lastSeq, rates: state.rates };
    const existing = await this.#deps.jobStates.findOne({ name: ALERT_JOB_NAME });
    if (existing === null) await this.#deps.jobStates.insert({ name: ALERT_JOB_NAME, data, updated: now });
    else await this.#deps.jobStates.updateById(existing._id, { set: { data, updated: now } });
  }
}

/** The start of the minute `ms` falls in (refusals are counted per minute). */
function minuteStart(ms: number): number {
  return ms - (ms % 60_000);
}

/** Users and contact groups, read once per run and only when a rule fires. */
class Directory {
  readonly #deps: Pick<AlertJobDeps, 'users' | 'contactGroups'>;
  #groups: Promise<Map<string, RecipientGroup>> | undefined;
  #users: Promise<Map<string, RecipientUser>> | undefined;

  constructor(deps: Pick<AlertJobDeps, 'users' | 'contactGroups'>) {
    this.#deps = deps;
  }

  groups(): Promise<Map<string, RecipientGroup>> {
    this.#groups ??= this.#deps.contactGroups.find({}).then((groups) => new Map(groups.map((g) => [g._id, { _id: g._id, group: g.group, users: g.users, ...(g.external === undefined ? {} : { external: g.external }) }])));
    return this.#groups;
  }

  users(): Promise<Map<string, RecipientUser>> {
    this.#users ??= this.#deps.users.find({}).then((users) => new Map(users.map((u) => [u._id, { email: u.email, ...(u.msisdn === undefined ? {} : { msisdn: u.msisdn }) }])));
    return this.#users;
  }
}
