/**
 * Audit retention, daily: audits whose event time is older than `auditing.retentionDays` are deleted, oldest first,
 * in batches with a turn of the event loop between them, so a first run over millions of old audits never holds the
 * service. 0 days keeps audits forever.
 */
import type { Logger } from 'pino';
import type { AuditLog } from '../storage/audits.js';
import type { ScheduledJob } from './registry.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Audits deleted per batch. */
export const AUDIT_DROP_BATCH = 1000;

export interface AuditRetentionDeps {
  audits: Pick<AuditLog, 'dropBefore'>;
  /** 0 keeps audits forever. */
  retentionDays: number;
  logger: Logger;
  now?: () => Date;
  /** Waits between batches; by default one turn of the event loop. */
  pause?: () => Promise<void>;
}

/** One retention pass; resolves with how many audits it deleted. */
export async function applyAuditRetention(deps: AuditRetentionDeps): Promise<number> {
  if (deps.retentionDays <= 0) return 0;
  const now = deps.now?.() ?? new Date();
  const cutoff = new Date(now.getTime() - deps.retentionDays * DAY_MS);
  const pause = deps.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  let total = 0;
  for (;;) {
    const removed = await deps.audits.dropBefore(cutoff, AUDIT_DROP_BATCH);
    total += removed;
    if (removed < AUDIT_DROP_BATCH) break;
    await pause();
  }
  if (total > 0) deps.logger.info({ audits: total, before: cutoff.toISOString() }, 'retention removed old audits');
  return total;
}

/** The daily audit retention job (03:45 server time, and once at start in case the machine was off). */
export function auditRetentionJob(deps: AuditRetentionDeps): ScheduledJob {
  return {
    name: 'audit-retention',
    cron: '45 3 * * *',
    runAtStart: true,
    run: async () => {
      await applyAuditRetention(deps);
    },
  };
}
