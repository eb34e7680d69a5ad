import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Schedulers } from '../../service/schedulers/registry.js';
import { sleep } from '../helpers/wait.js';

const silent = pino({ level: 'silent' });

describe('the scheduler registry: interval and dynamic jobs', () => {
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
            await sleep(120);
            running--;
          },
        },
      ],
      silent,
    );
    registry.start();
    await sleep(560);
    await registry.stop();
    expect(overlapped).toBe(false);
    // About 11 intervals, but each run takes more than two of them.
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(runs).toBeLessThanOrEqual(5);
    const after = runs;
    await sleep(150);
    expect(runs).toBe(after);
  });

  it('adds, replaces and removes jobs while running, and calls stop hooks on stop', async () => {
    const calls: string[] = [];
    const registry = new Schedulers([], silent);
    registry.start();
    registry.add({ name: 'a', everyMs: 30, run: async () => void calls.push('a1') });
    await sleep(100);
    expect(calls.filter((c) => c === 'a1').length).toBeGreaterThanOrEqual(2);
    registry.add({ name: 'a', everyMs: 30, run: async () => void calls.push('a2'), stop: async () => void calls.push('stopped') });
    const replacedAt = calls.length;
    await sleep(100);
    expect(calls.slice(replacedAt).every((c) => c === 'a2')).toBe(true);
    expect(calls.slice(replacedAt).length).toBeGreaterThanOrEqual(2);
    registry.add({ name: 'b', everyMs: 30, run: async () => void calls.push('b') });
    registry.remove('b');
    await sleep(80);
    expect(calls).not.toContain('b');
    expect(registry.has('a')).toBe(true);
    expect(registry.has('b')).toBe(false);
    await registry.stop();
    expect(calls.at(-1)).toBe('stopped');
    registry.add({ name: 'late', everyMs: 10, run: async () => void calls.push('late') });
    registry.wake('a');
    await sleep(50);
    expect(calls).not.toContain('late');
    expect(calls.at(-1)).toBe('stopped');
  });
});
