/**
 * The schedulers wing: the job registry and its jobs (retention, re-run tasks, polling channels, auto retry, alerts,
 * certificate expiry, message delivery, reports, backups). Built here, started last by the ready wing, once the
 * service listens. A new scheduled job is added in this file.
 */
import { Schedulers } from '../schedulers/registry.js';
import { metricsRetentionJob, retentionJob } from '../schedulers/retention.js';
import { auditRetentionJob } from '../schedulers/audit-retention.js';
import { autoRetryJob } from '../schedulers/auto-retry.js';
import { PollingChannels } from '../schedulers/polling.js';
import { TaskRunner } from '../schedulers/task-runner.js';
import { alertJob } from '../alerts/alert-job.js';
import { ReportsJob } from '../reports/reports-job.js';
import { certificateExpiryJob } from '../keystore/expiry-job.js';
import type { Keystore } from '../keystore/keystore.js';
import { Replays } from '../pipeline/replay.js';
import { newTransactionId } from '../storage/transaction-ids.js';
import type { Store } from '../storage/store.js';
import type { Backups } from '../backup/backups.js';
import type { ClinicSettings } from '../settings/clinic-settings.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Notify } from './notify.js';
import type { Pipelines } from './pipeline.js';
import type { Wing } from './lifecycle.js';
import type { RefusalRecorder } from '../refused/recorder.js';

export interface Scheduling {
  registry: Schedulers;
  polling: PollingChannels;
  taskRunner: TaskRunner;
  /** The replay entry, for the console's test messages too (issue 36). */
  replays: Replays;
}

export interface SchedulerParts {
  storage: Storage;
  store: Store;
  notify: Notify;
  pipelines: Pipelines;
  keystore: Keystore;
  backups: Backups;
  settings: ClinicSettings;
  /** Refusals per channel for the alert job's `refusals` rules (issue 35). */
  refusals: RefusalRecorder;
}

export function schedulersWing(core: Core, parts: SchedulerParts): Wing<Scheduling> {
  const { config, logger, events, timeZone, options } = core;
  const { timers } = options;
  const { storage, store, notify, pipelines, keystore, backups, settings } = parts;
  const { transactions, bodies, audits, claimer } = storage;
  const { outbox } = notify;
  const { pipeline, messages, log } = pipelines;
  const { channels, clients, tasks, taskTransactions, autoRetries, users, contactGroups, notifications, jobStates } = store;
  const consoleUrl = () => core.console.url;
  const registry = new Schedulers(
    [
      retentionJob({ transactions, bodies, channels, maxAgeDays: config.retention.maxAgeDays, refusals: storage.refusals, refusalsMaxAgeDays: config.refusals.maxAgeDays, searchIndex: storage.searchIndex, logger }),
      metricsRetentionJob({ transactions, minuteRetentionHours: config.metrics.minuteRetentionHours, logger }),
    ],
    logger.child({ component: 'schedulers' }),
    timers,
    // On PostgreSQL each job runs on one instance at a time, under a lease another takes over when it lapses.
    storage.cluster.leases,
  );
  const replays = new Replays({ pipeline, messages, log, bodies, channels, clients, newId: newTransactionId });
  const taskRunner = new TaskRunner({ tasks, items: taskTransactions, log, replays, events, concurrency: config.tasks.concurrency, logger: logger.child({ component: 'tasks' }), ...claimer });
  const polling = new PollingChannels({ registry, channels, replays, logger: logger.child({ component: 'polling' }) });
  registry.add(taskRunner.job());
  registry.add(polling.job());
  registry.add(
    autoRetryJob({ queue: autoRetries, log, channels, replays, events, minuteMs: config.autoRetry.minuteMs, logger: logger.child({ component: 'auto-retry' }), ...(timers === undefined ? {} : { now: () => new Date(timers.now()) }), ...claimer }, config.autoRetry.scanIntervalMs),
  );
  if (config.alerts.enableAlerts) {
    registry.add(
      alertJob({ log: transactions, channels, users, contactGroups, notifications, jobStates, outbox, pollPeriodMinutes: config.alerts.pollPeriodMinutes, minuteMs: config.alerts.minuteMs, timeZone, instance: config.alerts.himInstance, consoleUrl, defaultTimeoutMs: config.router.timeoutMs, refusals: parts.refusals, logger: logger.child({ component: 'alerts' }) }),
    );
  }
  // Certificates near expiry are announced whatever alerts.enableAlerts says: an expired certificate stops every client.
  registry.add(
    certificateExpiryJob({ keystore, users, contactGroups, outbox, warningDays: config.keystore.expiryWarningDays, groups: config.keystore.expiryAlertGroups, instance: config.alerts.himInstance, logger: logger.child({ component: 'keystore' }) }),
  );
  if (config.auditing.retentionDays > 0) {
    registry.add(auditRetentionJob({ audits, retentionDays: config.auditing.retentionDays, logger: logger.child({ component: 'audits' }) }));
  }
  registry.add(notify.delivery.job());
  registry.add(
    new ReportsJob({ enabled: config.reports.enableReports, users, channels, jobStates, log: transactions, outbox, timeZone, instance: config.alerts.himInstance, consoleUrl, minuteRetentionHours: config.metrics.minuteRetentionHours, logger: logger.child({ component: 'reports' }) }).job(),
  );
  // The backup folder and schedule saved in the console replace the job (or remove it when the folder is cleared).
  const scheduleBackups = (): void => {
    backups.useSettings(settings.effective().backup);
    const backupJob = backups.job();
    if (backupJob !== undefined) registry.add(backupJob);
    else if (registry.has('backup')) registry.remove('backup');
  };
  scheduleBackups();
  const stopSettings = settings.onChange(scheduleBackups);
  return { offers: { registry, polling, taskRunner, replays }, stop: stopSettings };
}
