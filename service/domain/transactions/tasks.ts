/**
 * Re-run tasks (COMPAT.md "tasks"): the task and per-transaction statuses, which status changes a user may ask
 * for, and the `filters` JSON of the task list and of one task's transactions. Pure.
 */
import type { ValidationProblem } from '../../contracts/api.js';
import { TASK_ITEM_STATUSES, TASK_OUTCOMES, TASK_STATUSES } from '../../contracts/vocabulary.js';
import type { TaskItemStatus, TaskOutcome, TaskStatus, UserTaskStatus } from '../../contracts/vocabulary.js';
import { isTransactionStatus, TRANSACTION_STATUSES } from './transaction-status.js';
import type { TransactionStatus } from './transaction-status.js';

// The lists are the wire's (contracts/vocabulary.ts); they are offered here too, beside the rules that use them.
export { TASK_ITEM_STATUSES, TASK_OUTCOMES, TASK_STATUSES };
export type { TaskItemStatus, TaskOutcome, TaskStatus, UserTaskStatus };

/** For each status a user may ask for, the statuses a task may be in to take it; Processing and Completed are the runner's to set. */
const USER_MOVES = {
  Paused: ['Queued', 'Processing'],
  // Resuming: the runner picks the task up again where it stopped.
  Queued: ['Paused'],
  Cancelled: ['Queued', 'Processing', 'Paused'],
} as const satisfies Record<UserTaskStatus, readonly TaskStatus[]>;

function isUserTaskStatus(status: TaskStatus): status is UserTaskStatus {
  return Object.hasOwn(USER_MOVES, status);
}

/** Whether a user may change a task from `from` to `to`; the reason says what is possible instead. */
export function taskStatusChange(from: TaskStatus, to: TaskStatus): { allowed: true; from: readonly TaskStatus[] } | { allowed: false; reason: string } {
  if (!isUserTaskStatus(to)) return { allowed: false, reason: `status ${to} is set by Junction; use Paused, Queued (to resume) or Cancelled` };
  const allowedFrom: readonly TaskStatus[] = USER_MOVES[to];
  if (!allowedFrom.includes(from)) return { allowed: false, reason: `a ${from} task cannot become ${to}; only ${allowedFrom.join(' or ')} tasks can` };
  return { allowed: true, from: allowedFrom };
}

export interface TaskListFilter {
  status?: TaskStatus[];
  /** Email of the user who created the task. */
  user?: string;
  from?: Date;
  to?: Date;
}

export interface TaskItemFilter {
  tstatus?: TaskItemStatus[];
  rerunStatus?: TransactionStatus[];
  hasErrors?: boolean;
}

type Parsed<T> = { ok: true; filter: T } | { ok: false; problems: ValidationProblem[] };

function parseObject(text: string | undefined, at: string): Parsed<Record<string, unknown>> {
  if (text === undefined || text.trim() === '') return { ok: true, filter: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problems: [{ path: at, message: 'must be a JSON object' }] };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, problems: [{ path: at, message: 'must be a JSON object' }] };
  return { ok: true, filter: parsed as Record<string, unknown> };
}

function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function listOf<T extends string>(value: unknown, allowed: readonly T[]): T[] | null {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0 || !list.every((v): v is T => typeof v === 'string' && (allowed as readonly string[]).includes(v))) return null;
  return list;
}

function dateOf(value: unknown): Date | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const quoted = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** The task list `filters` JSON: `status` (one or a list), `user` (email), `created` ({"$gte", "$lte"}, or its JSON text). */
export function parseTaskListFilters(text: string | undefined, at = 'querystring.filters'): Parsed<TaskListFilter> {
  const parsed = parseObject(text, at);
  if (!parsed.ok) return parsed;
  const problems: ValidationProblem[] = [];
  const filter: TaskListFilter = {};
  for (const [key, value] of Object.entries(parsed.filter)) {
    if (key === 'status') {
      const list = listOf(value, TASK_STATUSES);
      if (list === null) problems.push({ path: `${at}.status`, message: `must be one of: ${quoted(TASK_STATUSES)} (or a list of them)` });
      else filter.status = list;
    } else if (key === 'user') {
      if (typeof value !== 'string' || value === '') problems.push({ path: `${at}.user`, message: 'must be the email of a user' });
      else filter.user = value.toLowerCase();
    } else if (key === 'created') {
      // OpenHIM's console sends the range as JSON text inside the filters.
      const object = typeof value === 'string' ? jsonOrNull(value) : value;
      const range = typeof object === 'object' && object !== null && !Array.isArray(object) ? (object as Record<string, unknown>) : null;
      const from = range?.$gte === undefined ? undefined : dateOf(range.$gte);
      const to = range?.$lte === undefined ? undefined : dateOf(range.$lte);
      const unknown = range === null ? [] : Object.keys(range).filter((k) => k !== '$gte' && k !== '$lte');
      if (range === null || from === null || to === null || unknown.length > 0 || (from === undefined && to === undefined)) {
        problems.push({ path: `${at}.created`, message: 'must be {"$gte": date, "$lte": date} with at least one ISO 8601 date' });
      } else {
        if (from !== undefined) filter.from = from;
        if (to !== undefined) filter.to = to;
      }
    } else {
      problems.push({ path: `${at}.${key}`, message: 'is not a known filter; use status, user or created' });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, filter };
}

/** The `filters` JSON of one task's transactions: `tstatus`, `rerunStatus` (one or a list), `hasErrors` (boolean). */
export function parseTaskItemFilters(text: string | undefined, at = 'querystring.filters'): Parsed<TaskItemFilter> {
  const parsed = parseObject(text, at);
  if (!parsed.ok) return parsed;
  const problems: ValidationProblem[] = [];
  const filter: TaskItemFilter = {};
  for (const [key, value] of Object.entries(parsed.filter)) {
    if (key === 'tstatus') {
      const list = listOf(value, TASK_ITEM_STATUSES);
      if (list === null) problems.push({ path: `${at}.tstatus`, message: `must be one of: ${quoted(TASK_ITEM_STATUSES)} (or a list of them)` });
      else filter.tstatus = list;
    } else if (key === 'rerunStatus') {
      const list = listOf(value, TRANSACTION_STATUSES);
      if (list === null || !list.every(isTransactionStatus)) problems.push({ path: `${at}.rerunStatus`, message: `must be one of: ${quoted(TRANSACTION_STATUSES)} (or a list of them)` });
      else filter.rerunStatus = list;
    } else if (key === 'hasErrors') {
      // OpenHIM's console sends 'yes' or 'no'.
      const flag = value === 'yes' ? true : value === 'no' ? false : value;
      if (typeof flag !== 'boolean') problems.push({ path: `${at}.hasErrors`, message: 'must be true or false ("yes" or "no" as OpenHIM\'s console sends it)' });
      else filter.hasErrors = flag;
    } else {
      problems.push({ path: `${at}.${key}`, message: 'is not a known filter; use tstatus, rerunStatus or hasErrors' });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, filter };
}

/** A task's counts as the outcome is read from them. */
export interface TaskCounts {
  totalTransactions: number;
  remainingTransactions: number;
  succeededTransactions: number;
  failedTransactions: number;
}

/**
 * The outcome of a task's finished transactions: `pending` while none has finished, `succeeded` or `failed` when all
 * that finished did, `mixed` otherwise (some failed, or re-runs answered Completed or Completed with error(s), which
 * are not a success either). A task whose re-runs all failed is `failed` however its status reads.
 */
export function taskOutcome(counts: TaskCounts): TaskOutcome {
  const finished = Math.max(0, counts.totalTransactions - counts.remainingTransactions);
  if (finished === 0) return 'pending';
  if (counts.failedTransactions >= finished) return 'failed';
  if (counts.succeededTransactions >= finished) return 'succeeded';
  return 'mixed';
}

/** How one task transaction ended: `other` is a re-run answered Completed or Completed with error(s). */
export type TaskItemOutcome = 'succeeded' | 'failed' | 'other';

/** The outcome of a re-run by the new transaction's status (a task transaction refused before it was sent is `failed`). */
export function rerunOutcome(status: TransactionStatus): TaskItemOutcome {
  return status === 'Successful' ? 'succeeded' : status === 'Failed' ? 'failed' : 'other';
}

/**
 * Which of a task's transactions count as succeeded and which as failed (as `rerunOutcome` decides), as conditions on their stored fields (the
 * store's filter language: field equality and `$or`), so the counts are read by the store, never by loading items.
 * A transaction refused when its turn came (tstatus Failed) was not re-run: that is a failure too.
 */
export const TASK_ITEM_OUTCOME_CONDITIONS = {
  succeeded: { tstatus: 'Completed', rerunStatus: 'Successful' },
  failed: { $or: [{ tstatus: 'Failed' }, { tstatus: 'Completed', rerunStatus: 'Failed' }] },
} as const satisfies Record<'succeeded' | 'failed', object>;
