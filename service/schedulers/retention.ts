/**
 * Retention, daily: the global maximum age drops whole day partitions of the transaction log and their body
 * folders; each channel's maxBodyAgeDays removes that channel's older bodies and their words in the search index; refused requests and messages go after
 * `refusals.maxAgeDays`, or with the transactions.
 */
import type { Logger } from 'pino';
import { dayOf } from '../storage/bodies/bodies.js';
import type { Bodies } from '../storage/bodies/bodies.js';
import type { ChannelRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { TransactionLog } from '../storage/transactions.js';
import type { RefusalLog } from '../storage/refusals.js';
import type { SearchIndex } from '../storage/search-index.js';
import type { ScheduledJob } from './registry.js';
import { expiredBefore } from '../domain/operations/metric-periods.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The first day kept when keeping `days` days up to and including `today`. */
export function firstDayKept(today: Date, days: number): string {
  return dayOf(new Date(today.getTime() - (days - 1) * DAY_MS));
}

export interface RetentionDeps {
  transactions: TransactionLog;
  bodies: Bodies;
  channels: Collection<ChannelRecord>;
  /** 0 keeps transactions forever. */
  maxAgeDays: number;
  /** The refusal log (issue 35), kept `refusalsMaxAgeDays` days, or `maxAgeDays` when that is 0 or unset. */
  refusals?: Pick<RefusalLog, 'removeBefore'>;
  refusalsMaxAgeDays?: number;
  /** The search index (issue 37): a channel's bodies that age out take their words with them (its keys stay). */
  searchIndex?: Pick<SearchIndex, 'removeChannelTextBefore'>;
  logger: Logger;
  now?: () => Date;
}

/** One retention pass. */
export async function applyRetention(deps: RetentionDeps): Promise<void> {
  const today = deps.now?.() ?? new Date();
  if (deps.maxAgeDays > 0) {
    const keepFrom = firstDayKept(today, deps.maxAgeDays);
    const dropped = await deps.transactions.dropDaysBefore(keepFrom);
    const bodyDays = await deps.bodies.removeDaysBefore(keepFrom);
    if (dropped.length > 0 || bodyDays.length > 0) deps.logger.info({ keepFrom, days: dropped, bodyDays }, 'retention removed old transactions');
  }
  const refusalDays = deps.refusalsMaxAgeDays !== undefined && deps.refusalsMaxAgeDays > 0 ? deps.refusalsMaxAgeDays : deps.maxAgeDays;
  if (deps.refusals !== undefined && refusalDays > 0) {
    const keepFrom = firstDayKept(today, refusalDays);
    const removed = await deps.refusals.removeBefore(Date.parse(`${keepFrom}T00:00:00Z`));
    if (removed > 0) deps.logger.info({ keepFrom, rows: removed }, 'retention removed old refusals');
  }
  for (const channel of await deps.channels.find({ maxBodyAgeDays: { $exists: true } })) {
    if (channel.maxBodyAgeDays === undefined) continue;
    const keepFrom = firstDayKept(today, channel.maxBodyAgeDays);
    const days = await deps.bodies.removeChannelBodiesBefore(channel._id, keepFrom);
    if (days.length > 0) deps.logger.info({ channel: channel.name, keepFrom, days }, 'retention removed old bodies of a channel');
    // Every pass, not only when files went: text indexed after its bodies were removed (a late backfill) goes too.
    const unindexed = (await deps.searchIndex?.removeChannelTextBefore(channel._id, keepFrom)) ?? 0;
    if (unindexed > 0) deps.logger.info({ channel: channel.name, keepFrom, transactions: unindexed }, 'retention removed the indexed words of those bodies');
  }
}

/** The daily retention job (03:15 server time, and once at start in case the machine was off). */
export function retentionJob(deps: RetentionDeps): ScheduledJob {
  return { name: 'retention', cron: '15 3 * * *', runAtStart: true, run: () => applyRetention(deps) };
}

/** How long finished-transaction entries are kept: longer than the alert job's longest catch-up (a day). */
export const FINISHED_KEPT_MS = 2 * 24 * 3_600_000;

export interface MetricsRetentionDeps {
  transactions: Pick<TransactionLog, 'dropMetricsBefore' | 'dropFinishedBefore'>;
  /** How long minute buckets are kept (`metrics.minuteRetentionHours`). */
  minuteRetentionHours: number;
  logger: Logger;
  now?: () => Date;
}

/**
 * Drops minute metric buckets older than the configured hours, and finished-transaction entries older than two days.
 * Hour and day buckets go with their transactions' days (TransactionLog.dropDaysBefore).
 */
export async function applyMetricsRetention(deps: MetricsRetentionDeps): Promise<void> {
  const now = (deps.now ?? (() => new Date()))();
  const minutes = await deps.transactions.dropMetricsBefore('minute', expiredBefore(now, 'minute', deps.minuteRetentionHours * 3_600_000));
  const finished = await deps.transactions.dropFinishedBefore(new Date(now.getTime() - FINISHED_KEPT_MS));
  if (minutes + finished > 0) deps.logger.debug({ minuteBuckets: minutes, finishedEntries: finished }, 'old minute metrics and finished entries dropped');
}

/** Every 10 minutes, and once at start. */
export function metricsRetentionJob(deps: MetricsRetentionDeps): ScheduledJob {
  return { name: 'metrics-retention', everyMs: 10 * 60_000, runAtStart: true, run: () => applyMetricsRetention(deps) };
}
