/**
 * A task's outcome in words and colour: how many of its re-runs succeeded and failed. The verdict (`outcome`) is the
 * service's; this only says it. Colour is never the only cue: the words always say what the colour does.
 */
import type { MantineColor } from '@mantine/core';
import type { TaskOutcome, TaskStatus, TaskView } from '../../../../service/contracts/tasks';

export const OUTCOME_COLOR: Record<TaskOutcome, MantineColor> = { pending: 'gray', succeeded: 'teal', mixed: 'yellow', failed: 'red' };

const STATUS_COLOR: Record<TaskStatus, MantineColor> = { Queued: 'blue', Processing: 'cyan', Paused: 'yellow', Cancelled: 'gray', Completed: 'teal' };

/** The status badge's colour: a finished task takes its outcome's, so a task whose re-runs all failed is never green. */
export function statusColor(task: Pick<TaskView, 'status' | 'outcome'>): MantineColor {
  if (task.status === 'Completed') return task.outcome === 'pending' ? 'gray' : OUTCOME_COLOR[task.outcome];
  return STATUS_COLOR[task.status] ?? 'gray';
}

type Counted = Pick<TaskView, 'status' | 'outcome' | 'totalTransactions' | 'remainingTransactions' | 'succeededTransactions' | 'failedTransactions'>;

/** The re-runs neither succeeded nor failed: answered Completed or Completed with error(s). */
export function otherCount(task: Counted): number {
  const finished = Math.max(0, task.totalTransactions - task.remainingTransactions);
  return Math.max(0, finished - task.succeededTransactions - task.failedTransactions);
}

/** "All 11 failed", "3 succeeded so far", "2 succeeded, 1 failed, 1 with problems"; null while none has finished. */
export function outcomeWords(task: Counted): string | null {
  const finished = Math.max(0, task.totalTransactions - task.remainingTransactions);
  if (task.outcome === 'pending' || finished === 0) return null;
  const all = task.remainingTransactions === 0 && finished === task.totalTransactions;
  // A cancelled task re-runs nothing more, so what finished is its outcome, not a count "so far".
  const soFar = task.status === 'Completed' || task.status === 'Cancelled' ? '' : ' so far';
  if (task.outcome === 'succeeded') return all ? `All ${finished} succeeded` : `${finished} succeeded${soFar}`;
  if (task.outcome === 'failed') return all ? `All ${finished} failed` : `${finished} failed${soFar}`;
  const parts = [`${task.succeededTransactions} succeeded`, `${task.failedTransactions} failed`];
  const other = otherCount(task);
  if (other > 0) parts.push(`${other} with problems`);
  return `${parts.join(', ')}${soFar}`;
}

/** A sentence for the task's page when it did not all go well; null when there is nothing to warn of. */
export function outcomeWarning(task: Counted): { color: MantineColor; title: string; text: string } | null {
  if (task.outcome === 'failed') {
    return {
      color: 'red',
      title: task.status === 'Completed' ? 'Every re-run failed' : 'Every re-run so far failed',
      text: 'No transaction of this task was delivered by its re-run. Each row below says why: the error, or the new transaction, which has the details.',
    };
  }
  if (task.outcome === 'mixed') {
    const other = otherCount(task);
    return {
      color: 'yellow',
      title: 'Some re-runs did not succeed',
      text: `${task.failedTransactions} failed${other > 0 ? ` and ${other} were answered with problems (Completed or Completed with error(s))` : ''}. The rows below say which, and why.`,
    };
  }
  return null;
}
