/**
 * Retention, daily: the global maximum age drops whole day partitions of the transaction log and their body
 * folders; each channel's maxBodyAgeDays removes that channel's older bodies.
 */
import type { Logger } from 'pino';
import { dayOf } from '../storage/bodies/body-files.js';
import type { BodyFiles } from '../storage/bodies/body-files.js';
import type { ChannelRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';
import type { TransactionLog } from '../storage/transactions.js';
import type { ScheduledJob } from './registry.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The first day kept when keeping `days` days up to and including `today`. */
export function firstDayKept(today: Date, days: number): string {
  return dayOf(new Date(today.getTime() - (days - 1) * DAY_MS));
}

export interface RetentionDeps {
  transactions: TransactionLog;
  bodies: BodyFiles;
  channels: Collection<ChannelRecord>;
  /** 0 keeps transactions forever. */
  maxAgeDays: number;
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
  for (const channel of await deps.channels.find({ maxBodyAgeDays: { $exists: true } })) {
    if (channel.maxBodyAgeDays === undefined) continue;
    const keepFrom = firstDayKept(today, channel.maxBodyAgeDays);
    const days = await deps.bodies.removeChannelBodiesBefore(channel._id, keepFrom);
    if (days.length > 0) deps.logger.info({ channel: channel.name, keepFrom, days }, 'retention removed old bodies of a channel');
  }
}

/** The daily retention job (03:15 server time, and once at start in case the machine was off). */
export function retentionJob(deps: RetentionDeps): ScheduledJob {
  return { name: 'retention', cron: '15 3 * * *', runAtStart: true, run: () => applyRetention(deps) };
}
