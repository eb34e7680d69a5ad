/**
 * A job clock for tests (service/schedulers/timers.ts): nothing fires until the test moves the clock on, and then
 * every timer due by the new time fires in time order, cron expressions included (read with cron-parser, as
 * node-schedule reads them). Schedules are checked tick by tick instead of by waiting for real seconds.
 */
import cronParser from 'cron-parser';
import type { JobTimers, TimerHandle } from '../../service/schedulers/timers.js';

interface Pending {
  when: number;
  seq: number;
  fn: () => void;
}

export class ManualTimers implements JobTimers {
  #now: number;
  #seq = 0;
  readonly #pending = new Set<Pending>();

  constructor(start = Date.UTC(2026, 0, 5, 9, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  at(when: number, fn: () => void): TimerHandle {
    const entry: Pending = { when: Math.max(when, this.#now), seq: this.#seq++, fn };
    this.#pending.add(entry);
    return { cancel: () => this.#pending.delete(entry) };
  }

  cron(expression: string, fn: (due: number) => void): TimerHandle | null {
    let interval: ReturnType<typeof cronParser.parseExpression>;
    try {
      interval = cronParser.parseExpression(expression, { currentDate: new Date(this.#now) });
    } catch {
      return null;
    }
    let current: TimerHandle;
    const plan = (): void => {
      const due = (interval.next() as cronParser.CronDate).getTime();
      current = this.at(due, () => {
        plan();
        fn(due);
      });
    };
    plan();
    return { cancel: () => current.cancel() };
  }

  /** Moves the clock on by `ms`, firing every timer that falls due on the way, each at its own time. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let next: Pending | undefined;
      for (const p of this.#pending) if (p.when <= target && (next === undefined || p.when < next.when || (p.when === next.when && p.seq < next.seq))) next = p;
      if (next === undefined) break;
      this.#pending.delete(next);
      this.#now = next.when;
      next.fn();
    }
    this.#now = target;
  }
}
