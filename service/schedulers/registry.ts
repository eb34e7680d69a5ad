/**
 * Background jobs as a declarative list with start() and stop(). A job never overlaps itself, and a failure is
 * logged and retried at the next tick instead of stopping the schedule (OpenHIM's body culling ran once and stopped).
 * Jobs run on a cron expression or at a fixed interval; both are node-schedule jobs, and jobs can be added and
 * removed while the registry runs (polling channels come and go with their channels). Given `JobLeases` (several
 * instances sharing one database, leases.ts), a run first takes its job's lease and a planned run claims its slot, so
 * each job runs on one instance and each planned tick runs once across them all.
 */
import type { Logger } from 'pino';
import { cronSlot, intervalSlot } from './leases.js';
import type { JobLeases } from './leases.js';
import { systemTimers } from './timers.js';
import type { JobTimers, TimerHandle } from './timers.js';

interface JobBase {
  name: string;
  run(): Promise<void>;
  /** Also run once right after start (for work that may be overdue after downtime). */
  runAtStart?: boolean;
  /** Called by `stop()` once the schedule is cancelled: for work the job started and did not wait for. */
  stop?(): Promise<void>;
  /**
   * Runs on every instance, without a lease: for work on this instance's own state, such as polling's sync of the
   * channel jobs it schedules (each instance must have them, to take a tick over when the holder dies).
   */
  everyInstance?: boolean;
}

export type ScheduledJob = JobBase &
  (
    | {
        /** cron expression (5 fields, or 6 with seconds first), in the server's time zone. */
        cron: string;
        everyMs?: undefined;
      }
    | {
        /** Milliseconds between two runs, counted from the previous planned run (a late run does not shift the rest). */
        everyMs: number;
        cron?: undefined;
      }
  );

/** A running schedule: cron jobs are one timer; interval jobs plan their next one-off timer each time. */
interface Planned {
  job: ScheduledJob;
  current: TimerHandle | null;
  cancelled: boolean;
}

export class Schedulers {
  readonly #jobs = new Map<string, ScheduledJob>();
  readonly #logger: Logger;
  readonly #running = new Map<string, Promise<void>>();
  readonly #planned = new Map<string, Planned>();
  readonly #timers: JobTimers;
  readonly #leases: JobLeases | undefined;
  #started = false;
  #stopping: Promise<void> | undefined;

  /** Without `leases` every run goes ahead at once, as on a single instance. */
  constructor(jobs: readonly ScheduledJob[], logger: Logger, timers: JobTimers = systemTimers, leases?: JobLeases) {
    for (const job of jobs) this.#jobs.set(job.name, job);
    this.#logger = logger;
    this.#timers = timers;
    this.#leases = leases;
  }

  /** Runs a job now unless it is already running (or, with leases, another instance holds its lease); never rejects. */
  runNow(name: string): Promise<void> {
    return this.#start(name, undefined);
  }

  /** Starts a run; `slot` is set for runs the job's timer planned, which claim that slot across the cluster. */
  #start(name: string, slot: number | undefined): Promise<void> {
    const job = this.#jobs.get(name);
    if (job === undefined) return Promise.reject(new Error(`no job named ${name}`));
    const current = this.#running.get(name);
    if (current !== undefined) return current;
    const started = performance.now();
    // Without leases the job starts in this very turn, as it always has (callers rely on a tick having begun).
    const run = (this.#leases === undefined || job.everyInstance === true ? job.run() : this.#leased(job, slot, this.#leases))
      .then(() => this.#logger.debug({ job: name, ms: Math.round(performance.now() - started) }, 'scheduled job finished'))
      .catch((err: unknown) => this.#logger.error({ err, job: name }, 'scheduled job failed; it runs again at its next time'))
      .finally(() => this.#running.delete(name));
    this.#running.set(name, run);
    return run;
  }

  /** Runs the job if this instance holds (or takes) its lease and, for a planned run, is first to claim its slot. */
  async #leased(job: ScheduledJob, slot: number | undefined, leases: JobLeases): Promise<void> {
    if (!(await leases.take(job.name))) {
      this.#logger.debug({ job: job.name }, 'scheduled job left to the instance holding its lease');
      return;
    }
    if (slot !== undefined && !(await leases.claimTick(job.name, slot))) {
      this.#logger.debug({ job: job.name, slot: new Date(slot).toISOString() }, 'scheduled tick already run by another instance');
      return;
    }
    // A run longer than the lease keeps renewing it, so no other instance starts the same job beside it.
    let renewal: TimerHandle | null = null;
    let finished = false;
    const renew = (): void => {
      renewal = this.#timers.at(this.#timers.now() + leases.renewEveryMs, () => {
        if (finished) return;
        leases
          .take(job.name)
          .then((held) => {
            if (!held) this.#logger.warn({ job: job.name }, 'a running job lost its lease to another instance (this run was too slow to renew it)');
          })
          .catch((err: unknown) => this.#logger.warn({ err, job: job.name }, 'the lease of a running job could not be renewed'))
          .finally(() => {
            if (!finished) renew();
          });
      });
    };
    renew();
    try {
      await job.run();
    } finally {
      finished = true;
      (renewal as TimerHandle | null)?.cancel();
    }
  }

  /** Runs a job now if it exists and is not already running, without waiting; for "work arrived" signals. */
  wake(name: string): void {
    if (this.#jobs.has(name) && this.#stopping === undefined) void this.runNow(name);
  }

  /** Resolves once no job is running, including runs that start while it waits (never rejects). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running.values());
  }

  /** True when a job of this name is registered. */
  has(name: string): boolean {
    return this.#jobs.has(name);
  }

  /** Adds a job, or replaces the job of the same name (its run in progress finishes; a new one never overlaps it). */
  add(job: ScheduledJob): void {
    if (this.#stopping !== undefined) return;
    this.#unplan(job.name);
    this.#jobs.set(job.name, job);
    if (this.#started) this.#plan(job, false);
  }

  /** Removes a job; a run in progress finishes. */
  remove(name: string): void {
    this.#unplan(name);
    this.#jobs.delete(name);
  }

  start(): void {
    this.#started = true;
    for (const job of this.#jobs.values()) this.#plan(job, true);
  }

  /** Cancels the schedules, lets each job finish its background work, and waits for running jobs to finish. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const name of [...this.#planned.keys()]) this.#unplan(name);
      const stopping = [...this.#jobs.values()].map(async (job) => {
        try {
          await job.stop?.();
        } catch (err) {
          this.#logger.error({ err, job: job.name }, 'a job did not stop cleanly');
        }
      });
      await Promise.all(stopping);
      await Promise.all(this.#running.values());
      // Survivors take the jobs over at their next tick instead of waiting for the leases to run out.
      const leases = this.#leases;
      if (leases !== undefined) {
        await Promise.all([...this.#jobs.keys()].map((name) => leases.release(name).catch((err: unknown) => this.#logger.warn({ err, job: name }, 'a job lease could not be given up; it runs out by itself'))));
      }
    })();
    return this.#stopping;
  }

  #plan(job: ScheduledJob, atStart: boolean): void {
    const planned: Planned = { job, current: null, cancelled: false };
    if (job.cron !== undefined) {
      const scheduled = this.#timers.cron(job.cron, (due) => void this.#start(job.name, cronSlot(due)));
      if (scheduled === null) throw new Error(`job ${job.name}: invalid schedule ${job.cron}`);
      planned.current = scheduled;
    } else {
      if (!Number.isSafeInteger(job.everyMs) || job.everyMs < 1) throw new Error(`job ${job.name}: invalid interval ${job.everyMs}`);
      this.#next(planned, this.#timers.now() + job.everyMs, job.everyMs);
    }
    this.#planned.set(job.name, planned);
    if (atStart && job.runAtStart === true) void this.runNow(job.name);
  }

  #next(planned: Planned, at: number, everyMs: number): void {
    // A machine that slept past several runs catches up with one run, not a burst.
    const when = Math.max(at, this.#timers.now());
    planned.current = this.#timers.at(when, () => {
      if (planned.cancelled) return;
      this.#next(planned, when + everyMs, everyMs);
      void this.#start(planned.job.name, intervalSlot(when, everyMs));
    });
  }

  #unplan(name: string): void {
    const planned = this.#planned.get(name);
    if (planned === undefined) return;
    planned.cancelled = true;
    planned.current?.cancel();
    this.#planned.delete(name);
  }
}
