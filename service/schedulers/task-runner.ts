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
 */
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import type { LiveEvents } from '../events/live.js';
import type { Replays } from '../pipeline/replay.js';
import type { TaskRecord, TaskTransactionRecord } from '../storage/records.js';
import type { Collection, Filter } from '../storage/store.js';
import type { TransactionLog } from '../storage/transactions.js';
import { coalesce } from './coalesce.js';
import type { Coalesced } from './coalesce.js';
import type { ScheduledJob } from './registry.js';

export const TASKS_JOB = 'tasks';
// New tasks wake the runner at once; the tick only catches work left by an error (a failed store write, say).
const TICK_MS = 5_000;

export interface TaskRunnerDeps {
  tasks: Collection<TaskRecord>;
  items: Collection<TaskTransactionRecord>;
  log: TransactionLog;
  replays: Pick<Replays, 'newTransaction' | 'rerun' | 'link'>;
  events: LiveEvents;
  /** How many tasks run at the same time. */
  concurrency: number;
  logger: Logger;
}

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  /** Task id → its run in this process. */
  readonly #active = new Map<string, Promise<void>>();
  readonly #fill: Coalesced;
  #recovered = false;
  #stopping = false;

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
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
      // Conditional, so a pause or cancel that came after the read above wins.
      if (task.status === 'Queued') {
        if ((await tasks.updateMany({ _id: task._id, status: 'Queued' }, { set: { status: 'Processing' } })) === 0) continue;
        // Watchers (the console's task list) learn that it started, not only when its first batch is done.
        await this.#progress(task._id);
      }
      if (this.#active.has(task._id)) continue;
      const run = this.#run(task._id);
      this.#active.set(task._id, run);
    }
  }

  async #run(id: string): Promise<void> {
    const { tasks, items, logger } = this.#deps;
    let finished = false;
    try {
      await this.#recoverItems({ taskID: id, tstatus: 'Processing' });
      for (;;) {
        const task = await tasks.findById(id);
        if (this.#stopping || task === null || task.status !== 'Processing') break;
        const batch = await items.find({ taskID: id, tstatus: 'Queued' }, { sort: { index: 1 }, limit: task.batchSize });
        if (batch.length === 0) {
          await tasks.updateMany({ _id: id, status: 'Processing' }, { set: { status: 'Completed', completedDate: new Date(), remainingTransactions: 0 } });
          await this.#progress(id);
          logger.info({ task: id }, 're-run task completed');
          break;
        }
        // Every re-run of the batch settles before an error ends the run: one still in flight when the task is
        // resumed would otherwise look interrupted and could be sent again.
        const outcomes = await Promise.allSettled(batch.map((item) => this.#runItem(item)));
        await this.#progress(id);
        const failed = outcomes.find((o) => o.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
      }
      finished = true;
    } catch (err) {
      // The task stays Processing; the next tick resumes it, and #recoverItems settles what was in flight.
      logger.error({ err, task: id }, 're-run task stopped by an error; it is resumed at the next tick');
    } finally {
      this.#active.delete(id);
      // A slot is free: start the next task. Not after an error, which would only repeat at once.
      if (finished) this.wake();
    }
  }

  async #runItem(item: TaskTransactionRecord): Promise<void> {
    const { items, log, replays } = this.#deps;
    const original = await log.get(item.tid);
    if (original === null) {
      await items.updateById(item._id, { set: { tstatus: 'Failed', error: `Transaction ${item.tid} no longer exists (deleted, or removed by retention)` } });
      return;
    }
    const child = replays.newTransaction();
    // Written before anything is sent: after a crash, this id tells whether the re-run happened.
    if ((await items.updateById(item._id, { set: { tstatus: 'Processing', rerunID: child.id } })) === null) return;
    try {
      const stored = await replays.rerun(original, child);
      await items.updateById(item._id, { set: { tstatus: 'Completed', rerunStatus: stored.status } });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'TRANSACTION_NOT_RERUNNABLE')) throw err;
      // Refused before anything was stored or sent (its channel was disabled since the task was created, say).
      await items.updateById(item._id, { set: { tstatus: 'Failed', error: err.message }, unset: ['rerunID'] });
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

  /** Once per start: settles every task transaction a crash left Processing, and removes half-created tasks. */
  async #recover(): Promise<void> {
    const { tasks, items } = this.#deps;
    const known = (await tasks.find({})).map((t) => t._id);
    await items.removeMany({ taskID: { $nin: known } });
    const stuck = await this.#recoverItems({ tstatus: 'Processing' });
    if (stuck > 0) for (const id of known) await this.#progress(id, false);
  }

  /** Writes the remaining count of a task and publishes its progress. */
  async #progress(id: string, publish = true): Promise<void> {
    const { tasks, items, events } = this.#deps;
    const remaining = await items.count({ taskID: id, tstatus: { $in: ['Queued', 'Processing'] } });
    const task = await tasks.updateById(id, { set: { remainingTransactions: remaining } });
    if (task === null || !publish) return;
    events.emit('task.progress', { taskId: id, status: task.status, totalTransactions: task.totalTransactions, processed: task.totalTransactions - remaining, remaining });
  }

  async #stop(): Promise<void> {
    this.#stopping = true;
    await this.#fill.settle();
    await Promise.all(this.#active.values());
  }
}
