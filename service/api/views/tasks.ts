/** The public views of a re-run task and of one of its transactions, as the task routes answer with them. */
import type { TaskTransactionView, TaskView } from '../../contracts/tasks.js';
import { taskOutcome } from '../../domain/transactions/tasks.js';
import type { TaskTransactionRecord } from '../../storage/records.js';
import type { CountedTask } from '../../tasks/queue.js';

/** A task with its dates as text, and the outcome its counts make. */
export function taskView(task: CountedTask): TaskView {
  // The claim is the runner's bookkeeping between instances, not part of the task as OpenHIM shows it.
  const { created, completedDate, claimedBy: _by, claimedUntil: _until, ...rest } = task;
  return {
    ...rest,
    created: created.toISOString(),
    ...(completedDate === undefined ? {} : { completedDate: completedDate.toISOString() }),
    outcome: taskOutcome(task),
  };
}

/** One transaction of a task: what it was, and how its re-run went so far. */
export function itemView(item: TaskTransactionRecord): TaskTransactionView {
  const { tid, tstatus, rerunID, rerunStatus, error } = item;
  return { tid, tstatus, ...(rerunID === undefined ? {} : { rerunID }), ...(rerunStatus === undefined ? {} : { rerunStatus }), ...(error === undefined ? {} : { error }) };
}
