import { describe, expect, it } from 'vitest';
import { RestartPolicy } from '../../main/restart-policy.js';

describe('the restart policy', () => {
  it('doubles the wait after each crash up to the cap, and gives up at the crash limit', () => {
    const policy = new RestartPolicy({ initialDelayMs: 1_000, factor: 2, maxDelayMs: 5_000, maxCrashes: 5, windowMs: 60_000 });
    expect(policy.recordCrash(0)).toEqual({ action: 'restart', delayMs: 1_000, crashes: 1 });
    expect(policy.recordCrash(1_000)).toEqual({ action: 'restart', delayMs: 2_000, crashes: 2 });
    expect(policy.recordCrash(2_000)).toEqual({ action: 'restart', delayMs: 4_000, crashes: 3 });
    expect(policy.recordCrash(3_000)).toEqual({ action: 'restart', delayMs: 5_000, crashes: 4 });
    expect(policy.recordCrash(4_000)).toEqual({ action: 'give-up', crashes: 5 });
  });

  it('forgets crashes older than the window, so a service that ran well starts over from the first wait', () => {
    const policy = new RestartPolicy({ initialDelayMs: 100, factor: 2, maxDelayMs: 10_000, maxCrashes: 3, windowMs: 10_000 });
    expect(policy.recordCrash(0)).toMatchObject({ action: 'restart', delayMs: 100 });
    expect(policy.recordCrash(5_000)).toMatchObject({ action: 'restart', delayMs: 200 });
    // The first crash is now 10 s old and no longer counts.
    expect(policy.recordCrash(10_000)).toMatchObject({ action: 'restart', delayMs: 200, crashes: 2 });
    expect(policy.recordCrash(60_000)).toMatchObject({ action: 'restart', delayMs: 100, crashes: 1 });
  });

  it('starts over after reset()', () => {
    const policy = new RestartPolicy({ maxCrashes: 2 });
    expect(policy.recordCrash(0).action).toBe('restart');
    policy.reset();
    expect(policy.recordCrash(1).action).toBe('restart');
    expect(policy.recordCrash(2).action).toBe('give-up');
  });

  it('has defaults suited to a clinic PC: 1 s first wait, 5 crashes in 2 minutes', () => {
    const policy = new RestartPolicy();
    expect(policy.options).toEqual({ initialDelayMs: 1_000, maxDelayMs: 30_000, factor: 2, maxCrashes: 5, windowMs: 120_000 });
  });
});
