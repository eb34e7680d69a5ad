/** Re-run tasks as the management API answers them (COMPAT.md "tasks"). Import with `import type`. */

import type { TaskItemStatus, TaskOutcome, TaskStatus, TransactionStatus, UserTaskStatus } from './vocabulary.js';

// The status names are lists in vocabulary.ts that the rules (domain/transactions/tasks.ts) use too, so the wire and the rules cannot drift.
export type { TaskItemStatus, TaskOutcome, TaskStatus, UserTaskStatus };

export interface TaskView {
  _id: string;
  status: TaskStatus;
  /** How many of its transactions are re-run at the same time. */
  batchSize: number;
  totalTransactions: number;
  /** Transactions not re-run yet. */
  remainingTransactions: number;
  /** Email of the user who created it. */
  user: string;
  created: string;
  completedDate?: string;
  /** Re-run, and the new transaction is Successful. */
  succeededTransactions: number;
  /** Not re-run (refused when its turn came), or re-run and the new transaction Failed. */
  failedTransactions: number;
  /**
   * The finished transactions taken together: `pending` (none finished yet), `succeeded` (all), `failed` (all), or
   * `mixed` (anything else, such as re-runs answered Completed or Completed with error(s)).
   */
  outcome: TaskOutcome;
}

export interface TaskTransactionView {
  /** The transaction re-run. */
  tid: string;
  tstatus: TaskItemStatus;
  /** The new transaction made by the re-run. */
  rerunID?: string;
  rerunStatus?: TransactionStatus;
  /** Why it was not re-run. */
  error?: string;
}

/** `GET /tasks/:id`: the task with one page of its transactions, and how many of them match the filters (OpenHIM's field). */
export interface TaskDetail extends TaskView {
  transactions: TaskTransactionView[];
  totalFilteredTransactions: number;
}

/**
 * `PUT /tasks/:id`: pause (Paused), resume (Queued) or cancel (Cancelled), or change the batch size. A task sent back
 * whole as fetched (as OpenHIM's console saves) is accepted: `_id` and the read-only fields are ignored, and null is
 * "not set"; a status or batch size equal to the task's is no change.
 */
export interface TaskChange {
  status?: TaskStatus | null;
  batchSize?: number | null;
  _id?: string | null;
  totalTransactions?: number | null;
  remainingTransactions?: number | null;
  user?: string | null;
  created?: string | null;
  completedDate?: string | null;
  transactions?: TaskTransactionView[] | null;
  totalFilteredTransactions?: number | null;
  succeededTransactions?: number | null;
  failedTransactions?: number | null;
  outcome?: TaskOutcome | null;
}
