/**
 * Background jobs as a declarative list with start() and stop(). A job never overlaps itself, and a failure is
 * logged and retried at the next tick instead of stopping the schedule (OpenHIM's body culling ran once and stopped).
 */
import schedule from 'node-schedule';
import type { Job } from 'node-schedule';
import type { Logger } from 'pino';

export interface ScheduledJob {
  name: string;
  /** cron expression (5 fields, or 6 with seconds first), in the server's time zone. */
  cron: string;
  run(): Promise<void>;
  /** Also run once right after start (for work that may be overdue after downtime). */
  runAtStart?: boolean;
}

export class Schedulers {
  readonly #jobs: readonly ScheduledJob[];
  readonly #logger: Logger;
  readonly #running = new Map<string, Promise<void>>();
  #scheduled: Job[] = [];

  constructor(jobs: readonly ScheduledJob[], logger: Logger) {
    this.#jobs = jobs;
    this.#logger = logger;
  }

  /** Runs a job now unless it is already running; never rejects. */
  runNow(name: string): Promise<void> {
    const job = this.#jobs.find((j) => j.name === name);
    if (job === undefined) return Promise.reject(new Error(`no job named ${name}`));
    const current = this.#running.get(name);
    if (current !== undefined) return current;
    const started = Date.now();
    const run = job
      .run()
      .then(() => this.#logger.debug({ job: name, ms: Date.now() - started }, 'scheduled job finished'))
      .catch((err: unknown) => this.#logger.error({ err, job: name }, 'scheduled job failed; it runs again at its next time'))
      .finally(() => this.#running.delete(name));
    this.#running.set(name, run);
    return run;
  }

  start(): void {
    for (const job of this.#jobs) {
      const scheduled = schedule.scheduleJob(job.name, job.cron, () => void this.runNow(job.name));
      if (scheduled === null) throw new Error(`job ${job.name}: invalid schedule ${job.cron}`);
      this.#scheduled.push(scheduled);
      if (job.runAtStart === true) void this.runNow(job.name);
    }
  }

  /** Cancels the schedules and waits for running jobs to finish. */
  async stop(): Promise<void> {
    for (const job of this.#scheduled) job.cancel();
    this.#scheduled = [];
    await Promise.all(this.#running.values());
  }
}
