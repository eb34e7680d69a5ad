/**
 * Re-run tasks as the management API sees them (COMPAT.md "tasks"): creating one from transaction ids
 * (`POST /tasks`, also how a single transaction is re-run) or from the transaction filters (`POST /bulkrerun`),
 * listing, reading, pausing, resuming, cancelling and deleting. The re-running itself is the task runner's
 * (schedulers/task-runner.ts), woken here whenever there is new work.
 *
 * A task's transactions are written before the task itself, so the runner never sees a task half created; what a
 * crash leaves of an unfinished creation is removed by the runner at its next start.
 */
import { AppError } from '../errors.js';
import { newObjectId } from '../storage/object-ids.js';
import type { ValidationProblem } from '../contracts/api.js';
import { isAdmin } from '../domain/access/permissions.js';
import type { BulkRerunPreview } from '../contracts/transactions.js';
import { canRerunChannel, earlierAttemptsWarning, rerunRefusal, rerunWarning } from '../domain/transactions/rerun.js';
import { TASK_ITEM_OUTCOME_CONDITIONS, taskOutcome, taskStatusChange } from '../domain/transactions/tasks.js';
import type { TaskItemFilter, TaskListFilter, TaskStatus } from '../domain/transactions/tasks.js';
import { restrictToChannels, transactionAccess } from '../domain/transactions/transaction-access.js';
import type { LiveEvents } from '../events/live.js';
import type { ChannelRecord, TaskRecord, TaskTransactionRecord, UserRecord } from '../storage/records.js';
import type { Collection, Condition } from '../storage/store.js';
import type { TransactionFilter, TransactionLog } from '../storage/transactions.js';
import { LatestAttempts } from './attempts.js';

/** Most transactions in one task; a larger bulk re-run must be split by narrower filters. */
export const MAX_TASK_TRANSACTIONS = 100_000;
/** Most transactions of one task re-run at the same time. */
export const MAX_BATCH_SIZE = 100;
// Per-transaction warnings beyond this are summed up in one line, so an answer stays readable.
const MAX_WARNINGS = 20;

export interface TaskQueueDeps {
  tasks: Collection<TaskRecord>;
  items: Collection<TaskTransactionRecord>;
  channels: Collection<ChannelRecord>;
  log: TransactionLog;
  events: LiveEvents;
  /** Tells the task runner there is work. */
  wake: () => void;
}

export interface NewTaskOptions {
  batchSize: number;
  /** Created Paused: it waits until resumed. */
  paused: boolean;
}

export interface BulkRerunOptions extends NewTaskOptions {
  /**
   * Re-run a match only when it is the latest attempt of its message (its original and the re-runs linked to it), so
   * an original and its earlier re-run never both go out again. Off by default: a bulk re-run as OpenHIM's.
   */
  latestAttemptOnly: boolean;
}

/** A task as read through the queue: with its outcome counts, counted now for a task stored before they existed. */
export type CountedTask = TaskRecord & Required<Pick<TaskRecord, 'succeededTransactions' | 'failedTransactions'>>;

/** One re-runnable match of a bulk re-run, and the message it is an attempt of. */
interface Candidate {
  id: string;
  message: string;
  wasRerun: boolean;
}

/** What a bulk re-run's filters match, read once for the task or for its preview. */
interface BulkScan {
  /** Re-runnable matches, newest first. */
  candidates: Candidate[];
  /** Of those, the latest attempts of their messages (all of them when the chains were not read). */
  latest: Candidate[];
  matching: number;
  alreadyRerun: number;
  reruns: number;
  notRerunnable: number;
  /** The matches left out as not re-runnable, how many and why. */
  warnings: string[];
}

export interface CreatedTask {
  task: CountedTask;
  /** Things the user should know, such as transactions that were already re-run. */
  warnings: string[];
}

export interface TaskChange {
  status?: TaskStatus;
  batchSize?: number;
}

type Actor = Pick<UserRecord, 'email' | 'groups'>;

function newTaskId(): string {
  // The id every record gets (OpenHIM's ObjectId shape), chosen here because the task's items are written first.
  return newObjectId();
}

function capped(warnings: string[]): string[] {
  if (warnings.length <= MAX_WARNINGS) return warnings;
  return [...warnings.slice(0, MAX_WARNINGS), `...and ${warnings.length - MAX_WARNINGS} more`];
}

function refuse(code: 'TRANSACTION_NOT_RERUNNABLE' | 'NOT_FOUND' | 'FORBIDDEN', problems: ValidationProblem[], many: string): never {
  const [first] = problems;
  const message = problems.length === 1 && first !== undefined ? first.message : `${many}; the first: ${first?.message ?? ''}`;
  throw new AppError(code, message, problems);
}

export class TaskQueue {
  readonly #deps: TaskQueueDeps;

  constructor(deps: TaskQueueDeps) {
    this.#deps = deps;
  }

  /** `POST /tasks`: a task re-running the given transactions in the given order (repeats are re-run once). */
  async createFromIds(user: Actor, tids: readonly string[], options: NewTaskOptions): Promise<CreatedTask> {
    const { log } = this.#deps;
    const channelOf = this.#channelLookup();
    const firstIndex = new Map<string, number>();
    tids.forEach((tid, i) => {
      if (!firstIndex.has(tid)) firstIndex.set(tid, i);
    });
    const forbidden: ValidationProblem[] = [];
    const missing: ValidationProblem[] = [];
    const refused: ValidationProblem[] = [];
    const warnings: string[] = [];
    for (const [tid, i] of firstIndex) {
      const path = `body.tids.${i}`;
      const tx = await log.get(tid);
      const channel = tx === null ? null : await channelOf(tx.channelID);
      if (!isAdmin(user) && (channel === null || !canRerunChannel(user, channel))) {
        // Unknown ids look the same as forbidden ones, so ids of other channels are not confirmed.
        forbidden.push({ path, message: `You are not allowed to re-run transaction ${tid}: re-runs need a group in its channel's txRerunAcl` });
        continue;
      }
      if (tx === null) {
        missing.push({ path, message: `No transaction with id ${tid}` });
        continue;
      }
      const refusal = rerunRefusal(tx, channel);
      if (refusal !== null) refused.push({ path, message: `Transaction ${tid} cannot be re-run: ${refusal}` });
      const warning = rerunWarning(tx);
      if (warning !== null) warnings.push(warning);
    }
    if (forbidden.length > 0) refuse('FORBIDDEN', forbidden, `You are not allowed to re-run ${forbidden.length} of the transactions`);
    if (missing.length > 0) refuse('NOT_FOUND', missing, `${missing.length} of the transactions do not exist`);
    if (refused.length > 0) refuse('TRANSACTION_NOT_RERUNNABLE', refused, `${refused.length} of the transactions cannot be re-run`);
    const task = await this.#create(user, [...firstIndex.keys()], options);
    return { task, warnings: capped(warnings) };
  }

  /**
   * `POST /bulkrerun`: a task re-running every transaction that matches the filters and that the user may re-run,
   * oldest first. Matches that cannot be re-run (their channel is disabled or deleted, or their body was not stored)
   * are left out, and the warnings say how many and why.
   */
  async createFromFilter(user: Actor, filter: TransactionFilter, options: BulkRerunOptions): Promise<CreatedTask> {
    const scan = await this.#scan(user, filter, options.latestAttemptOnly);
    const chosen = options.latestAttemptOnly ? scan.latest : scan.candidates;
    const warnings = [...scan.warnings];
    const earlier = scan.candidates.length - chosen.length;
    if (earlier > 0) warnings.push(earlierAttemptsWarning(earlier));
    if (chosen.length === 0) {
      const details = warnings.map((message) => ({ path: 'body.filters', message }));
      throw new AppError('TRANSACTION_NOT_RERUNNABLE', warnings.length === 0 ? 'No transaction matches the filters; nothing was re-run' : `No matching transaction can be re-run: ${warnings.join('; ')}`, details);
    }
    const rerunBefore = chosen.filter((c) => c.wasRerun).length;
    if (rerunBefore > 0) warnings.push(`${rerunBefore} of the transactions ${rerunBefore === 1 ? 'was' : 'were'} already re-run; they are re-run again`);
    // The stream is newest first; replaying in the original order keeps downstream systems' view consistent.
    const task = await this.#create(user, chosen.map((c) => c.id).reverse(), options);
    return { task, warnings };
  }

  /**
   * `POST /bulkrerun/preview`: what a bulk re-run of these filters would re-run, with and without `latestAttemptOnly`,
   * and how many of the matches were re-run before or are re-runs themselves; nothing is created or sent. Refused as
   * the bulk re-run itself would be (no channel the user may re-run, too many matches).
   */
  async preview(user: Actor, filter: TransactionFilter): Promise<BulkRerunPreview> {
    const scan = await this.#scan(user, filter, true);
    const { matching, alreadyRerun, reruns, notRerunnable, warnings } = scan;
    return { matching, alreadyRerun, reruns, notRerunnable, rerunnable: scan.candidates.length, latestAttempts: scan.latest.length, warnings };
  }

  /**
   * Reads every match of a bulk re-run's filters among the channels the user may re-run, newest first, keeping only
   * ids. With `chains`, each re-runnable match is placed among its message's attempts (tasks/attempts.ts).
   */
  async #scan(user: Actor, filter: TransactionFilter, chains: boolean): Promise<BulkScan> {
    const { log, channels } = this.#deps;
    let scoped = filter;
    if (!isAdmin(user)) {
      const rerunnable = (await channels.find({})).filter((c) => canRerunChannel(user, c));
      const allowed = rerunnable.map((c) => c._id);
      if (allowed.length === 0) throw new AppError('FORBIDDEN', "You may not re-run the transactions of any channel: re-runs need a group in a channel's txRerunAcl");
      scoped = restrictToChannels(filter, allowed);
      if (scoped.channelID?.length === 0) throw new AppError('FORBIDDEN', 'You may not re-run the transactions of the channels in filters.channelID');
      // A text search (issue 37) looks only into bodies the user may read, as the list does: with none, nothing matches.
      if (filter.text !== undefined) {
        scoped = restrictToChannels(scoped, rerunnable.filter((c) => transactionAccess(user, c).bodies).map((c) => c._id));
        if (scoped.channelID?.length === 0) return { candidates: [], latest: [], matching: 0, alreadyRerun: 0, reruns: 0, notRerunnable: 0, warnings: [] };
      }
    }
    const channelOf = this.#channelLookup();
    const attempts = chains ? new LatestAttempts(log) : null;
    const candidates: Candidate[] = [];
    const skipped = new Map<string, number>();
    let matching = 0;
    let alreadyRerun = 0;
    let reruns = 0;
    for await (const tx of log.stream(scoped)) {
      matching++;
      if (tx.wasRerun === true) alreadyRerun++;
      if (tx.parentID !== undefined) reruns++;
      const refusal = rerunRefusal(tx, await channelOf(tx.channelID));
      if (refusal !== null) {
        skipped.set(refusal, (skipped.get(refusal) ?? 0) + 1);
        continue;
      }
      candidates.push({ id: tx._id, message: attempts === null ? tx._id : await attempts.add(tx), wasRerun: tx.wasRerun === true });
      if (candidates.length > MAX_TASK_TRANSACTIONS) {
        throw new AppError('BAD_REQUEST', `The filters match more than ${MAX_TASK_TRANSACTIONS} transactions that can be re-run; narrow them (for example by request.timestamp) and create several tasks`);
      }
    }
    const warnings = [...skipped].map(([why, n]) => `${n} matching transaction${n === 1 ? ' was' : 's were'} left out: ${why}`);
    // Decided only once every match is placed: a later attempt may be read after the match it supersedes.
    const latest = attempts === null ? candidates : candidates.filter((c) => attempts.isLatest(c.id, c.message));
    return { candidates, latest, matching, alreadyRerun, reruns, notRerunnable: matching - candidates.length, warnings };
  }

  /** The tasks a user may see (all for admins, their own for others), newest first. */
  async list(user: Actor, filter: TaskListFilter, page: { limit: number; skip: number }): Promise<CountedTask[]> {
    const owner = isAdmin(user) ? filter.user : user.email;
    if (filter.user !== undefined && filter.user !== owner) return [];
    const where: Record<string, Condition> = {};
    if (owner !== undefined) where.user = owner;
    if (filter.status !== undefined) where.status = { $in: filter.status };
    if (filter.from !== undefined || filter.to !== undefined) where.created = { ...(filter.from === undefined ? {} : { $gte: filter.from }), ...(filter.to === undefined ? {} : { $lte: filter.to }) };
    const found = await this.#deps.tasks.find(where, { sort: { created: -1 }, skip: page.skip, ...(page.limit === 0 ? {} : { limit: page.limit }) });
    return await Promise.all(found.map((task) => this.#counted(task)));
  }

  /** One task, if the user may see it: 403 for other users' tasks (and, for non-admins, unknown ids), 404 when unknown. */
  async get(user: Actor, id: string): Promise<CountedTask> {
    const task = await this.#deps.tasks.findById(id);
    if (!isAdmin(user) && task?.user !== user.email) throw new AppError('FORBIDDEN', 'You can only see the tasks you created');
    if (task === null) throw new AppError('NOT_FOUND', `No task with id ${id}`);
    return await this.#counted(task);
  }

  /** A page of a task's transactions, in task order (`limit: 0` is all), and how many match the filter. */
  async transactions(taskId: string, filter: TaskItemFilter, page: { limit: number; skip: number }): Promise<{ items: TaskTransactionRecord[]; total: number }> {
    const where: Record<string, Condition> = { taskID: taskId };
    if (filter.tstatus !== undefined) where.tstatus = { $in: filter.tstatus };
    if (filter.rerunStatus !== undefined) where.rerunStatus = { $in: filter.rerunStatus };
    if (filter.hasErrors !== undefined) where.error = { $exists: filter.hasErrors };
    const items = await this.#deps.items.find(where, { sort: { index: 1 }, skip: page.skip, ...(page.limit === 0 ? {} : { limit: page.limit }) });
    return { items, total: await this.#deps.items.count(where) };
  }

  /** Pauses, resumes (status Queued) or cancels a task, or changes its batch size. */
  async change(user: Actor, id: string, change: TaskChange): Promise<CountedTask> {
    const { tasks, wake } = this.#deps;
    const task = await this.get(user, id);
    const set: Partial<TaskRecord> = {};
    // The task's own values are no change, so a task sent back whole as it was fetched changes nothing.
    const batchSize = change.batchSize === task.batchSize ? undefined : change.batchSize;
    if (batchSize !== undefined) set.batchSize = batchSize;
    let from: readonly TaskStatus[] = ['Queued', 'Processing', 'Paused'];
    if (change.status !== undefined && change.status !== task.status) {
      const decision = taskStatusChange(task.status, change.status);
      if (!decision.allowed) throw new AppError('CONFLICT', `Task ${id} is ${task.status}: ${decision.reason}`);
      set.status = change.status;
      from = decision.from;
    } else if (batchSize !== undefined && !from.includes(task.status)) {
      throw new AppError('CONFLICT', `Task ${id} is ${task.status}; only an unfinished task's batchSize can change`);
    }
    if (Object.keys(set).length === 0) return task;
    // Conditional on the status read above: the runner may have moved the task on (e.g. completed it) meanwhile.
    const changed = await tasks.updateMany({ _id: id, status: { $in: [...from] } }, { set });
    const found = await tasks.findById(id);
    if (found === null) throw new AppError('NOT_FOUND', `No task with id ${id}`);
    const updated = await this.#counted(found);
    if (changed === 0) throw new AppError('CONFLICT', `Task ${id} became ${updated.status} meanwhile; it was not changed`);
    this.#progress(updated);
    if (updated.status === 'Queued') wake();
    return updated;
  }

  /** Deletes a task and its transaction list; a task being processed must be paused or cancelled first. */
  async remove(user: Actor, id: string): Promise<void> {
    const task = await this.get(user, id);
    if (task.status === 'Processing') throw new AppError('CONFLICT', `Task ${id} is being processed; pause or cancel it before deleting it`);
    await this.#deps.tasks.removeById(id);
    await this.#deps.items.removeMany({ taskID: id });
  }

  async #create(user: Actor, tids: readonly string[], options: NewTaskOptions): Promise<CountedTask> {
    const { tasks, items, wake } = this.#deps;
    const id = newTaskId();
    for (const [index, tid] of tids.entries()) await items.insert({ _id: `${id}-${index}`, taskID: id, index, tid, tstatus: 'Queued' });
    const task = await tasks.insert({
      _id: id,
      status: options.paused ? 'Paused' : 'Queued',
      batchSize: options.batchSize,
      totalTransactions: tids.length,
      remainingTransactions: tids.length,
      succeededTransactions: 0,
      failedTransactions: 0,
      user: user.email,
      created: new Date(),
    });
    const counted = await this.#counted(task);
    this.#progress(counted);
    if (!options.paused) wake();
    return counted;
  }

  #progress(task: CountedTask): void {
    const { totalTransactions: total, remainingTransactions: remaining, succeededTransactions: succeeded, failedTransactions: failed } = task;
    this.#deps.events.emit('task.progress', { taskId: task._id, status: task.status, totalTransactions: total, processed: total - remaining, remaining, succeeded, failed, outcome: taskOutcome(task) });
  }

  /** The task with its outcome counts: as the runner last wrote them, or counted now for a task stored before them. */
  async #counted(task: TaskRecord): Promise<CountedTask> {
    const { succeededTransactions, failedTransactions } = task;
    if (succeededTransactions !== undefined && failedTransactions !== undefined) return { ...task, succeededTransactions, failedTransactions };
    const { items } = this.#deps;
    const [succeeded, failed] = await Promise.all([
      items.count({ taskID: task._id, ...TASK_ITEM_OUTCOME_CONDITIONS.succeeded }),
      items.count({ taskID: task._id, ...TASK_ITEM_OUTCOME_CONDITIONS.failed }),
    ]);
    return { ...task, succeededTransactions: succeeded, failedTransactions: failed };
  }

  /** Channel lookups cached for one request: a task usually holds many transactions of few channels. */
  #channelLookup(): (id: string) => Promise<ChannelRecord | null> {
    const cache = new Map<string, Promise<ChannelRecord | null>>();
    return (id) => {
      let found = cache.get(id);
      if (found === undefined) cache.set(id, (found = this.#deps.channels.findById(id)));
      return found;
    };
  }
}
