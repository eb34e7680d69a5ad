import { describe, expect, it } from 'vitest';
import { recentFailures, waitBeforeNextAttempt } from '../../service/domain/login-throttle.js';
import { LoginThrottle } from '../../service/accounts/login-throttle.js';

const policy = { maxFailures: 3, windowMs: 60_000 };

describe('login throttle arithmetic', () => {
  it('allows attempts until the limit, then waits until the oldest failure leaves the window', () => {
    expect(waitBeforeNextAttempt([1000, 2000], policy, 3000)).toBe(0);
    expect(waitBeforeNextAttempt([1000, 2000, 3000], policy, 3000)).toBe(58_000);
    expect(waitBeforeNextAttempt([1000, 2000, 3000], policy, 61_001)).toBe(0);
    expect(recentFailures([1000, 2000, 70_000], policy, 70_500)).toEqual([70_000]);
  });

  it('tracks accounts case-insensitively and clears an account on success, but not its address', () => {
    let now = 0;
    const throttle = new LoginThrottle({ maxFailuresPerAccount: 2, maxFailuresPerAddress: 3, windowSeconds: 60, now: () => now });
    throttle.recordFailure('Bob@x.example', '10.0.0.1');
    throttle.recordFailure('bob@x.example', '10.0.0.1');
    expect(throttle.retryAfterSeconds('BOB@x.example', '10.0.0.2')).toBe(60);
    throttle.recordSuccess('bob@x.example');
    expect(throttle.retryAfterSeconds('bob@x.example', '10.0.0.2')).toBe(0);
    throttle.recordFailure('carol@x.example', '10.0.0.1');
    expect(throttle.retryAfterSeconds('dave@x.example', '10.0.0.1')).toBe(60);
    now = 61_000;
    expect(throttle.retryAfterSeconds('dave@x.example', '10.0.0.1')).toBe(0);
  });
});
