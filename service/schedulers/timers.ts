/**
 * The clock the job registry plans with. Production uses node-schedule (cron expressions in the server's zone, and
 * one-off times further away than setTimeout can reach); tests pass a clock they move on by hand, so a schedule can
 * be checked tick by tick without waiting for real seconds to pass.
 */
import schedule from 'node-schedule';

export interface TimerHandle {
  cancel(): void;
}

export interface JobTimers {
  /** Milliseconds since the epoch, as this clock sees it. */
  now(): number;
  /** Calls `fn` once at `when` (epoch ms); a time already past fires as soon as possible. */
  at(when: number, fn: () => void): TimerHandle;
  /** Calls `fn` with the planned time (epoch ms) at every time a cron expression (5 fields, or 6 with seconds first) names; null if it is invalid. */
  cron(expression: string, fn: (due: number) => void): TimerHandle | null;
}

/** The real clock: node-schedule jobs. */
export const systemTimers: JobTimers = {
  now: () => Date.now(),
  at(when, fn) {
    // node-schedule refuses a time already past, which the clock can reach between two lines: hence the small
    // margin, and another try if it still refused.
    for (;;) {
      const job = schedule.scheduleJob(new Date(Math.max(when, Date.now() + 5)), fn);
      if (job !== null) return { cancel: () => job.cancel() };
    }
  },
  cron(expression, fn) {
    // node-schedule passes the planned time of each run.
    const job = schedule.scheduleJob(expression, (fireDate: Date) => fn(fireDate.getTime()));
    return job === null ? null : { cancel: () => job.cancel() };
  },
};
