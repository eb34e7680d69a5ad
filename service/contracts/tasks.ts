/** Re-run tasks as the management API answers them (COMPAT.md "tasks"). Import with `import type`. */

export type TaskStatus = 'Queued' | 'Processing' | 'Paused' | 'Cancelled' | 'Completed';

/** One transaction of a task: waiting, being re-run, re-run (whatever the new transaction's status), or not re-run. */
export type TaskItemStatus = 'Queued' | 'Processing' | 'Completed' | 'Failed';

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
}

export interface TaskTransactionView {
  /** The transaction re-run. */
  tid: string;
  tstatus: TaskItemStatus;
  /** The new transaction made by the re-run. */
  rerunID?: string;
  rerunStatus?: string;
  /** Why it was not re-run. */
  error?: string;
}

/** `GET /tasks/:id`: the task with one page of its transactions. */
export interface TaskDetail extends TaskView {
  transactions: TaskTransactionView[];
}

/** `PUT /tasks/:id`: pause (Paused), resume (Queued) or cancel (Cancelled), or change the batch size. */
export interface TaskChange {
  status?: 'Paused' | 'Queued' | 'Cancelled';
  batchSize?: number;
}
