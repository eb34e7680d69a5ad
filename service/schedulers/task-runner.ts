/**
 * The task runner: re-runs the transactions of Queued and Processing tasks, `batchSize` at a time per task and
 * `concurrency` tasks at a time, oldest task first. Between batches it reads the task again, so pausing or
 * cancelling takes effect after the batch in flight. On a clean stop the batch in flight finishes and the task
 * stays Processing, so the next start resumes it where it stopped.
 *
 * No transaction of a task is re-run twice, even across a crash. Each task transaction is written Processing,
 * with the id its re-run will get, before anything is sent; and the pipeline stores the re-run under that id
 * before it sends anything downstream. So when a start (or a resumed task) finds a task transaction still
 * Processing, the transaction log answers what happened: a re-run stored under that id was sent (it is recorded
 * as the outcome, never sent again; a re-run interrupted mid-flight was marked Failed by the log's crash recovery);
 * no such re-run means nothing was sent, and the transaction goes back to Queued. Both writes complete (NeDB
 * appends them to its files) before the next step starts, so this holds when the process is killed at any point;
 * a power cut can still lose what the operating system had not yet written to disk.
 *
 * Several instances on one database run each task on one of them: an instance claims a task (storage/claims.ts)
 * with one conditional update before it runs it or settles its transactions, renews the claim while it runs and
 * gives it back when it stops, so a task is never run by two at once, and a task whose instance died is taken over
 * once its claim runs out. Waking the runner (a task created through this instance) only makes this instance look
 * for work sooner; the claim decides who does it.
 */
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { TASK_ITEM_OUTCOME_CONDITIONS, rerunOutcome, taskOutcome } from '../domain/transactions/tasks.js';
import type { TaskItemOutcome } from '../domain/transactions/tasks.js';
import type { LiveEvents } from '../events/live.js';
import type { Replays } from '../pipeline/replay.js';
import type { TaskRecord, TaskTransactionRecord } from '../storage/records.js';
import { CLAIM_FIELDS, SINGLE_INSTANCE, claimFor, claimable } from '../storage/claims.js';
import type { Collection, Filter } from '../storage/store.js';
import type { TransactionLog } from '../storage/transactions.js';
import { coalesce } from './coalesce.js';
import type { Coalesced } from './coalesce.js';
import type { ScheduledJob } from './registry.js';

export const TASKS_JOB = 'tasks';
// New tasks wake the runner at once; the tick only catches work left by an error (a failed store write, say).
const TICK_MS = 5_000;
/** How long a task's claim lasts unless renewed: a dead instance's task is taken over within this. */
export const TASK_CLAIM_MS = 30_000;

export interface TaskRunnerDeps {
  tasks: Collection<TaskRecord>;
  items: Collection<TaskTransactionRecord>;
  log: Pick<TransactionLog, 'get'>;
  replays: Pick<Replays, 'newTransaction' | 'rerun' | 'link'>;
  events: LiveEvents;
  /** How many tasks run at the same time. */
  concurrency: number;
  logger: Logger;
  /** This instance, as its claims name it (the default suits the embedded engine, one process at a time). */
  instance?: string;
  /** How long a claim lasts unless renewed (TASK_CLAIM_MS; tests shorten it). */
  claimMs?: number;
  now?: () => Date;
}

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  /** Task id → its run in this process. */
  readonly #active = new Map<string, Promise<void>>();
  readonly #fill: Coalesced;
  readonly #instance: string;
  readonly #claimMs: number;
  readonly #now: () => Date;
  #recovered = false;
  #stopping = false;

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
    this.#instance = deps.instance ?? SINGLE_INSTANCE;
    this.#claimMs = deps.claimMs ?? TASK_CLAIM_MS;
    this.#now = deps.now ?? (() => new Date());
    this.#fill = coalesce(() => this.#startTasks(), deps.logger, 'starting re-run tasks');
  }

  /** The registry job: starts waiting tasks at start and on each tick; its stop lets the batches in flight finish. */
  job(): ScheduledJob {
    return { name: TASKS_JOB, everyMs: TICK_MS, runAtStart: true, run: () => this.#fill.settle(), stop: () => this.#stop() };
  }

  /** Tells the runner that a task was created or resumed. */
  wake(): void {
    if (!this.#stopping) this.#fill.signal();
  }

  async #startTasks(): Promise<void> {
    const { tasks, concurrency } = this.#deps;
    if (this.#stopping) return;
    if (!this.#recovered) {
      await this.#recover();
      this.#recovered = true;
    }
    if (this.#active.size >= concurrency) return;
    const waiting = await tasks.find({ status: { $in: ['Processing', 'Queued'] } }, { sort: { created: 1 } });
    // Tasks a stop interrupted go first: they were started before anything still Queued.
    const ordered = [...waiting.filter((t) => t.status === 'Processing'), ...waiting.filter((t) => t.status === 'Queued')];
    for (const task of ordered) {
      if (this.#active.size >= concurrency || this.#stopping) return;
      if (this.#active.has(task._id)) continue;
      // Conditional on the status read above, so a pause or cancel that came after the read wins; and on nobody
      // else's claim, so another instance's run of it is left alone.
      if (!(await this.#claim(task._id, task.status === 'Queued' ? { status: 'Processing' } : {}, { status: task.status }))) continue;
      // Watchers (the console's task list) learn that it started, not only when its first batch is done.
      if (task.status === 'Queued') await this.#progress(task._id);
      if (this.#active.has(task._id)) continue;
      const run = this.#run(task._id);
      this.#active.set(task._id, run);
    }
  }

  /** Takes or renews this instance's claim on a task, with `set` besides, where `filter` matches; true when it holds. */
  async #claim(id: string, set: Partial<TaskRecord> = {}, filter: Filter = {}): Promise<boolean> {
    const now = this.#now();
    const changed = await this.#deps.tasks.updateMany({ ...filter, _id: id, ...claimable(this.#instance, now) }, { set: { ...set, ...claimFor(this.#instance, now, this.#claimMs) } });
    return changed === 1;
  }

  /** Gives a task's claim back, if this instance still holds it, so another instance may take the task at once. */
  async #release(id: string): Promise<void> {
    await this.#deps.tasks.updateMany({ _id: id, claimedBy: this.#instance }, { unset: CLAIM_FIELDS });
  }

  async #run(id: string): Promise<void> {
    const { tasks, items, logger } = this.#deps;
    let finished = false;
    // A batch may take longer than the claim (slow upstreams): the claim is renewed while it runs.
    const renewal = setInterval(() => {
      // Only while it runs: a renewal landing after the task completed must not claim it again.
      this.#claim(id, {}, { status: 'Processing' }).catch((err: unknown) => logger.warn({ err, task: id }, 'the claim of a running re-run task could not be renewed'));
    }, Math.max(1, Math.floor(this.#claimMs / 3)));
    renewal.unref();
    try {
      // What a crash left in flight is settled from the log; the counts are then read again whole.
      if ((await this.#recoverItems({ taskID: id, tstatus: 'Processing' })) > 0) await this.#progress(id);
      for (;;) {
        // Renewed before each batch: an instance that lost its claim (it stalled past it) leaves the task to the new holder.
        if (!(await this.#claim(id))) {
          logger.warn({ task: id }, 'another instance took this re-run task over; it is left to that instance');
          break;
        }
        const task = await tasks.findById(id);
        if (this.#stopping || task === null || task.status !== 'Processing') break;
        const batch = await items.find({ taskID: id, tstatus: 'Queued' }, { sort: { index: 1 }, limit: task.batchSize });
        if (batch.length === 0) {
          // The claim goes in the same write: a task is never seen Completed while still claimed.
          await tasks.updateMany({ _id: id, status: 'Processing', claimedBy: this.#instance }, { set: { status: 'Completed', completedDate: new Date(), remainingTransactions: 0 }, unset: CLAIM_FIELDS });
          await this.#progress(id);
          logger.info({ task: id }, 're-run task completed');
          break;
        }
        // Every re-run of the batch settles before an error ends the run: one still in flight when the task is
        // resumed would otherwise look interrupted and could be sent again.
        const outcomes = await Promise.allSettled(batch.map((item) => this.#runItem(item)));
        await this.#progress(id, true, outcomes.map((o) => (o.status === 'fulfilled' ? o.value : null)));
        const failed = outcomes.find((o) => o.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
      }
      finished = true;
    } catch (err) {
      // The task stays Processing; the next tick resumes it, and #recoverItems settles what was in flight.
      logger.error({ err, task: id }, 're-run task stopped by an error; it is resumed at the next tick');
    } finally {
      clearInterval(renewal);
      await this.#release(id).catch((err: unknown) => logger.warn({ err, task: id }, 'the claim of a re-run task could not be given back; it runs out by itself'));
      this.#active.delete(id);
      // A slot is free: start the next task. Not after an error, which would only repeat at once.
      if (finished) this.wake();
    }
  }

  /** Re-runs one task transaction; answers how it ended, or null when it was not this run's to settle (removed meanwhile). */
  async #runItem(item: TaskTransactionRecord): Promise<TaskItemOutcome | null> {
    const { items, log, replays } = this.#deps;
    const original = await log.get(item.tid);
    if (original === null) {
      const settled = await items.updateById(item._id, { set: { tstatus: 'Failed', error: `Transaction ${item.tid} no longer exists (deleted, or removed by retention)` } });
      return settled === null ? null : 'failed';
    }
    const child = replays.newTransaction();
    // Written before anything is sent: after a crash, this id tells whether the re-run happened.
    if ((await items.updateById(item._id, { set: { tstatus: 'Processing', rerunID: child.id } })) === null) return null;
    try {
      const stored = await replays.rerun(original, child);
      const settled = await items.updateById(item._id, { set: { tstatus: 'Completed', rerunStatus: stored.status } });
      return settled === null ? null : rerunOutcome(stored.status);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'TRANSACTION_NOT_RERUNNABLE')) throw err;
      // Refused before anything was stored or sent (its channel was disabled since the task was created, say).
      const settled = await items.updateById(item._id, { set: { tstatus: 'Failed', error: err.message }, unset: ['rerunID'] });
      return settled === null ? null : 'failed';
    }
  }

  /** Settles task transactions left Processing by a crash or an error, from what the transaction log holds. */
  async #recoverItems(filter: Filter): Promise<number> {
    const { items, log, replays, logger } = this.#deps;
    const stuck = await items.find(filter);
    for (const item of stuck) {
      const child = item.rerunID === undefined ? null : await log.get(item.rerunID);
      if (child === null) {
        await items.updateById(item._id, { set: { tstatus: 'Queued' }, unset: ['rerunID'] });
        continue;
      }
      await replays.link(item.tid, child._id);
      await items.updateById(item._id, { set: { tstatus: 'Completed', rerunStatus: child.status } });
      logger.warn({ task: item.taskID, transactionId: item.tid, rerunID: child._id }, 'a re-run interrupted by a stop was already sent; it is recorded, not sent again');
    }
    return stuck.length;
  }

  /**
   * Once per start: settles every task transaction a crash left Processing, each task under its claim (another
   * instance may be running it, its transactions rightly Processing), and removes half-created tasks.
   */
  async #recover(): Promise<void> {
    const { tasks, items, logger } = this.#deps;
    const known = (await tasks.find({})).map((t) => t._id);
    if (this.#deps.instance === undefined) {
      await items.removeMany({ taskID: { $nin: known } });
    } else {
      // Only items of tasks created long enough ago: another instance may be writing a new task's items right now.
      const orphans = (await items.find({ taskID: { $nin: known } })).filter((item) => isOldEnough(item.taskID, this.#now()));
      for (const taskID of new Set(orphans.map((item) => item.taskID))) await items.removeMany({ taskID });
    }
    const stuck = new Set((await items.find({ tstatus: 'Processing' })).map((item) => item.taskID));
    for (const id of stuck) {
      if (!(await this.#claim(id))) continue;
      try {
        await this.#recoverItems({ taskID: id, tstatus: 'Processing' });
        await this.#progress(id, false);
      } finally {
        await this.#release(id).catch((err: unknown) => logger.warn({ err, task: id }, 'the claim of a re-run task could not be given back; it runs out by itself'));
      }
    }
  }

  /**
   * Writes the remaining and outcome counts of a task and publishes its progress. After a batch, the outcome counts
   * are the stored ones plus the batch's (this instance holds the task's claim, so nothing else changes them), which
   * spares two counts over all of a large task's transactions per batch; otherwise, and at the end, they are counted.
   */
  async #progress(id: string, publish = true, batch?: readonly (TaskItemOutcome | null)[]): Promise<void> {
    const { tasks, items, events } = this.#deps;
    const remaining = await items.count({ taskID: id, tstatus: { $in: ['Queued', 'Processing'] } });
    const { succeeded, failed } = await this.#outcomeCounts(id, remaining === 0 ? undefined : batch);
    const task = await tasks.updateById(id, { set: { remainingTransactions: remaining, succeededTransactions: succeeded, failedTransactions: failed } });
    if (task === null || !publish) return;
    const outcome = taskOutcome({ totalTransactions: task.totalTransactions, remainingTransactions: remaining, succeededTransactions: succeeded, failedTransactions: failed });
    events.emit('task.progress', { taskId: id, status: task.status, totalTransactions: task.totalTransactions, processed: task.totalTransactions - remaining, remaining, succeeded, failed, outcome });
  }

  async #outcomeCounts(id: string, batch: readonly (TaskItemOutcome | null)[] | undefined): Promise<{ succeeded: number; failed: number }> {
    const { tasks, items } = this.#deps;
    const stored = batch === undefined ? null : await tasks.findById(id);
    if (batch !== undefined && stored?.succeededTransactions !== undefined && stored.failedTransactions !== undefined) {
      return { succeeded: stored.succeededTransactions + batch.filter((o) => o === 'succeeded').length, failed: stored.failedTransactions + batch.filter((o) => o === 'failed').length };
    }
    const [succeeded, failed] = await Promise.all([items.count({ taskID: id, ...TASK_ITEM_OUTCOME_CONDITIONS.succeeded }), items.count({ taskID: id, ...TASK_ITEM_OUTCOME_CONDITIONS.failed })]);
    return { succeeded, failed };
  }

  async #stop(): Promise<void> {
    this.#stopping = true;
    await this.#fill.settle();
    await Promise.all(this.#active.values());
  }
}

/** How long a task may take to be created (its transactions are written first) before its items count as orphans. */
const CREATION_GRACE_MS = 60 * 60_000;

/** True when a task id (an ObjectId, whose first 8 hex digits are its creation second) is older than the grace. */
function isOldEnough(taskID: string, now: Date): boolean {
  const seconds = Number.parseInt(taskID.slice(0, 8), 16);
  // An id not in that shape says nothing of its age: its items are orphans as before.
  if (!/^[0-9a-f]{24}$/.test(taskID) || !Number.isFinite(seconds)) return true;
  return now.getTime() - seconds * 1000 > CREATION_GRACE_MS;
}
