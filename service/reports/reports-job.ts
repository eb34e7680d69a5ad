/**
 * The daily and weekly reports job: every minute (and at start) it asks which report periods are due
 * (domain/alerts/reports.ts), and for each one not yet done builds every recipient's report from the metric buckets and
 * records one email each in the outbox, which delivers it. Cheap when nothing is due: it reads one job-state record.
 *
 * Never twice, never skipped across a restart: each email has the key `report:<kind>:<period start date>:<email>`,
 * so a period interrupted half-way is finished by the next run without repeating what was recorded, and the job's
 * state (`jobStates`, name `reports`) says which period of each kind is done. Only the latest due period of each kind
 * is ever sent: a machine that was off for a week sends one daily and one weekly report, not seven.
 */
import type { Logger } from 'pino';
import type { OutgoingMessage } from '../notify/outbox.js';
import { metricsSource } from '../domain/operations/metric-periods.js';
import { periodsToSend, reportMessage, reportTable, duePeriods } from '../domain/alerts/reports.js';
import type { ReportKind, ReportPeriod, ReportsDone } from '../domain/alerts/reports.js';
import { viewableChannels } from '../domain/transactions/transaction-access.js';
import type { ChannelRecord, JobStateRecord, UserRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { TransactionLog } from '../storage/transactions.js';

/** The job-state record's name. */
export const REPORTS_JOB = 'reports';

export interface ReportsJobOptions {
  /** `reports.enableReports`. Periods that fall due while it is off are marked done, not sent later. */
  enabled: boolean;
  users: Collection<UserRecord>;
  channels: Collection<ChannelRecord>;
  jobStates: Collection<JobStateRecord>;
  log: Pick<TransactionLog, 'metrics' | 'metricsTimeZone'>;
  outbox: { enqueue(messages: readonly OutgoingMessage[]): Promise<unknown> };
  /** The zone reports are scheduled and cut in (`Junction.timeZone`). */
  timeZone: string;
  /** `alerts.himInstance`. */
  instance: string;
  /** The console's address for links, read when a report is made (it is known only once the API listens). */
  consoleUrl: () => string;
  /** `metrics.minuteRetentionHours`: minute buckets are read only when the zone's days do not line up with hours. */
  minuteRetentionHours: number;
  logger: Logger;
  now?: () => Date;
}

const FLAG: Record<ReportKind, 'dailyReport' | 'weeklyReport'> = { daily: 'dailyReport', weekly: 'weeklyReport' };

/** Records the due daily and weekly reports in the outbox. */
export class ReportsJob {
  readonly #o: ReportsJobOptions;
  readonly #now: () => Date;

  constructor(options: ReportsJobOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** The job for the scheduler registry: every minute, and once at start. */
  job(): { name: string; everyMs: number; runAtStart: boolean; run: () => Promise<void> } {
    return { name: REPORTS_JOB, everyMs: 60_000, runAtStart: true, run: () => this.run() };
  }

  /**
   * One run. The first run on a data folder sends nothing: it records the periods already due as done, so reports
   * start at the next 07:00 rather than with a stale one on the day Junction is installed or upgraded.
   */
  async run(): Promise<void> {
    const now = this.#now();
    const { timeZone, logger } = this.#o;
    const state = await this.#o.jobStates.findOne({ name: REPORTS_JOB });
    if (state === null) {
      const done: ReportsDone = {};
      for (const period of duePeriods(now, timeZone)) done[period.kind] = period.startDate;
      await this.#save(null, done, now);
      logger.info({ done }, 'reports: first run; the periods already due are not sent, reports start at the next 07:00');
      return;
    }
    let done = doneOf(state.data);
    const due = periodsToSend(now, timeZone, done);
    if (due.length === 0) return;
    for (const period of due) {
      if (this.#o.enabled) await this.#send(period, now);
      else logger.info({ period: period.kind, from: period.from, to: period.to }, 'reports: not sent, reports.enableReports is off');
      done = { ...done, [period.kind]: period.startDate };
      await this.#save(state, done, now);
    }
  }

  async #save(state: JobStateRecord | null, done: ReportsDone, now: Date): Promise<void> {
    const data = { ...(state?.data ?? {}), ...done };
    if (state === null) await this.#o.jobStates.insert({ name: REPORTS_JOB, data, updated: now });
    else await this.#o.jobStates.updateById(state._id, { set: { data, updated: now } });
  }

  async #send(period: ReportPeriod, now: Date): Promise<void> {
    const { logger } = this.#o;
    const recipients = (await this.#o.users.find({ [FLAG[period.kind]]: true })).filter((user) => typeof user.email === 'string' && user.email.trim() !== '');
    if (recipients.length === 0) return;
    const buckets = await this.#buckets(period, now);
    if (buckets === null) return;
    const channels = await this.#o.channels.find({});
    const acls = channels.map((c) => ({ _id: c._id, txViewAcl: c.txViewAcl ?? [], txViewFullAcl: c.txViewFullAcl ?? [] }));
    const messages: OutgoingMessage[] = recipients.map((user) => {
      const viewable = viewableChannels({ groups: user.groups ?? [] }, acls);
      const table = reportTable(buckets, channels, viewable === 'all' ? 'all' : new Set(viewable.keys()));
      const message = reportMessage({ period, table, timeZone: this.#o.timeZone, instance: this.#o.instance, consoleUrl: this.#o.consoleUrl(), generatedAt: now });
      const email = user.email.trim();
      return {
        kind: 'report',
        method: 'email',
        to: email,
        user: user.email,
        ...message,
        key: `report:${period.kind}:${period.startDate}:${email}`,
        report: { period: period.kind, from: period.from, to: period.to },
      };
    });
    await this.#o.outbox.enqueue(messages);
    logger.info({ period: period.kind, from: period.from, to: period.to, recipients: messages.length }, 'reports: recorded for sending');
  }

  // The period's buckets: day buckets when they line up with the report's zone (always, when the zone is the one the
  // log cuts buckets in), else hour or minute buckets; null, logged, when none add up to the period.
  async #buckets(period: ReportPeriod, now: Date) {
    const { log, timeZone, logger } = this.#o;
    const minutesKeptFrom = new Date(now.getTime() - this.#o.minuteRetentionHours * 3_600_000);
    const query = { startDate: period.from, endDate: new Date(period.to.getTime() - 1), timeZone, period: period.kind === 'daily' ? ('day' as const) : ('week' as const) };
    const source = metricsSource(query, log.metricsTimeZone, minutesKeptFrom);
    if (!source.ok) {
      logger.error({ period: period.kind, from: period.from, problems: source.problems }, 'reports: the stored metric buckets do not add up to this period; no report is sent for it');
      return null;
    }
    return log.metrics({ period: source.source.period, from: source.source.from, to: source.source.to });
  }
}

function doneOf(data: Record<string, unknown>): ReportsDone {
  const done: ReportsDone = {};
  for (const kind of ['daily', 'weekly'] as const) {
    const value = data[kind];
    if (typeof value === 'string') done[kind] = value;
  }
  return done;
}
