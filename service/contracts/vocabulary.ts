/**
 * The closed lists of names that the wire and the rules share: transaction, task and task item statuses, the value
 * types of a mediator's configuration, the metric periods. They live here, at the bottom of the service, so that the
 * contracts need nothing above them and the rules in domain/ check against the very lists the API answers with.
 * Plain values only: the console imports this folder too.
 */

export const TRANSACTION_STATUSES = ['Processing', 'Failed', 'Completed', 'Completed with error(s)', 'Successful'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const TASK_STATUSES = ['Queued', 'Processing', 'Paused', 'Cancelled', 'Completed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** One transaction of a task: waiting, being re-run, re-run (whatever the new transaction's status), or not re-run. */
export const TASK_ITEM_STATUSES = ['Queued', 'Processing', 'Completed', 'Failed'] as const;
export type TaskItemStatus = (typeof TASK_ITEM_STATUSES)[number];

/**
 * How a task's finished transactions went, taken together (domain/transactions/tasks.ts decides): none finished yet,
 * every one succeeded, every one failed, or some of each (or re-runs answered Completed or Completed with error(s)).
 */
export const TASK_OUTCOMES = ['pending', 'succeeded', 'mixed', 'failed'] as const;
export type TaskOutcome = (typeof TASK_OUTCOMES)[number];

/**
 * The statuses a user may ask for (`PUT /tasks/:id`): pause, resume (Queued) and cancel. Processing and Completed are
 * the runner's to set; which status each may follow is a rule (domain/transactions/tasks.ts), keyed by this list.
 */
export const USER_TASK_STATUSES = ['Paused', 'Queued', 'Cancelled'] as const satisfies readonly TaskStatus[];
export type UserTaskStatus = (typeof USER_TASK_STATUSES)[number];

/** The value types of a mediator configuration parameter (SPEC.md "Mediator registration"). */
export const CONFIG_TYPES = ['string', 'bigstring', 'bool', 'number', 'option', 'map', 'struct', 'password'] as const;
export type MediatorConfigType = (typeof CONFIG_TYPES)[number];

/** OpenHIM's time-series names, finest first. */
export const METRIC_PERIODS = ['minute', 'hour', 'day', 'week', 'month', 'year'] as const;
export type MetricPeriod = (typeof METRIC_PERIODS)[number];

/** How full the data folder's disk is (issue 33): the levels domain/operations/disk-space.ts decides between. */
export type DiskLevel = 'ok' | 'low' | 'critical';
