import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Schedulers } from '../../service/schedulers/registry.js';
import { sleep } from '../helpers/wait.js';

const silent = pino({ level: 'silent' });

/** Time is advanced, not waited for: node-schedule plans each run from the (fake) clock and timers. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('the scheduler registry: interval and dynamic jobs', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2024-05-01T00:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs an interval job at each interval, skipping runs while the previous one is still going', async () => {
    let runs = 0;
    let running = 0;
    let overlapped = false;
    const registry = new Schedulers(
      [
        {
          name: 'slow',
          everyMs: 50,
          run: async () => {
            runs++;
            overlapped ||= running > 0;
            running++;
            await sleep(120); // a fake timer too: the run takes 120 ms of the test's time
            running--;
          },
        },
      ],
      silent,
    );
    registry.start();
    await pass(560);
    // stop() waits for the run in progress, whose 120 ms pass on the fake clock.
    const stopped = registry.stop();
    await pass(120);
    await stopped;
    expect(overlapped).toBe(false);
    // About 11 intervals, but each run takes more than two of them.
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(runs).toBeLessThanOrEqual(5);
    const after = runs;
    await pass(150);
    expect(runs).toBe(after);
  });

  it('adds, replaces and removes jobs while running, and calls stop hooks on stop', async () => {
    const calls: string[] = [];
    const registry = new Schedulers([], silent);
    registry.start();
    registry.add({ name: 'a', everyMs: 30, run: async () => void calls.push('a1') });
    await pass(100);
    expect(calls.filter((c) => c === 'a1').length).toBeGreaterThanOrEqual(2);
    registry.add({ name: 'a', everyMs: 30, run: async () => void calls.push('a2'), stop: async () => void calls.push('stopped') });
    const replacedAt = calls.length;
    await pass(100);
    expect(calls.slice(replacedAt).every((c) => c === 'a2')).toBe(true);
    expect(calls.slice(replacedAt).length).toBeGreaterThanOrEqual(2);
    registry.add({ name: 'b', everyMs: 30, run: async () => void calls.push('b') });
    registry.remove('b');
    await pass(80);
    expect(calls).not.toContain('b');
    expect(registry.has('a')).toBe(true);
    expect(registry.has('b')).toBe(false);
    await registry.stop();
    expect(calls.at(-1)).toBe('stopped');
    registry.add({ name: 'late', everyMs: 10, run: async () => void calls.push('late') });
    registry.wake('a');
    await pass(50);
    expect(calls).not.toContain('late');
    expect(calls.at(-1)).toBe('stopped');
  });
});
