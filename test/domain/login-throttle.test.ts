import { describe, expect, it } from 'vitest';
import { recentFailures, waitBeforeAttempt, waitBeforeNextAttempt } from '../../service/domain/access/login-throttle.js';
import { FailureThrottle, LoginThrottle } from '../../service/accounts/login-throttle.js';

const policy = { maxFailures: 3, windowMs: 60_000 };

describe('login throttle arithmetic', () => {
  it('allows attempts until the limit, then waits until the oldest failure leaves the window', () => {
    expect(waitBeforeNextAttempt([1000, 2000], policy, 3000)).toBe(0);
    expect(waitBeforeNextAttempt([1000, 2000, 3000], policy, 3000)).toBe(58_000);
    expect(waitBeforeNextAttempt([1000, 2000, 3000], policy, 61_001)).toBe(0);
    expect(recentFailures([1000, 2000, 70_000], policy, 70_500)).toEqual([70_000]);
  });

  it('counts attempts still being checked, but asks only a short wait for them', () => {
    expect(waitBeforeNextAttempt([1000], policy, 3000, 1)).toBe(0);
    expect(waitBeforeNextAttempt([1000], policy, 3000, 2)).toBe(1000);
  });

  it('holds back an identity over all addresses only at addresses that have failed for it', () => {
    const three = { perIdentityAndAddress: { maxFailures: 5, windowMs: 60_000 }, perIdentity: policy, perAddress: { maxFailures: 50, windowMs: 60_000 } };
    const identity = [1000, 2000, 3000];
    // A clean address: the identity's total does not matter.
    expect(waitBeforeAttempt({ identityAndAddress: [], identity, address: [] }, three, 4000)).toBe(0);
    // An address that failed once is held back until its own failure leaves the window.
    expect(waitBeforeAttempt({ identityAndAddress: [2500], identity, address: [2500] }, three, 4000)).toBe(57_000);
    expect(waitBeforeAttempt({ identityAndAddress: [1000], identity, address: [1000] }, three, 4000)).toBe(57_000);
  });
});

describe('FailureThrottle', () => {
  function throttle(now: () => number) {
    return new FailureThrottle({ maxFailuresPerIdentityAndAddress: 2, maxFailuresPerIdentity: 3, maxFailuresPerAddress: 4, windowSeconds: 60, now });
  }

  it('limits an identity per address, and never locks out a clean address', () => {
    let now = 0;
    const t = throttle(() => now);
    t.recordFailure('lab', '10.0.0.1');
    t.recordFailure('lab', '10.0.0.1');
    expect(t.retryAfterSeconds('lab', '10.0.0.1')).toBe(60);
    // Client ids are case-sensitive: another id is another identity.
    expect(t.retryAfterSeconds('LAB', '10.0.0.1')).toBe(0);
    t.recordFailure('lab', '10.0.0.2');
    t.recordFailure('lab', '10.0.0.3');
    // The identity's total (4) is past its limit: the addresses that failed are held back, a clean one is not.
    expect(t.retryAfterSeconds('lab', '10.0.0.2')).toBe(60);
    expect(t.retryAfterSeconds('lab', '10.0.0.9')).toBe(0);
    now = 60_001;
    expect(t.retryAfterSeconds('lab', '10.0.0.1')).toBe(0);
    expect(t.retryAfterSeconds('lab', '10.0.0.2')).toBe(0);
  });

  it('limits an address across identities, and attempts that name none', () => {
    const t = throttle(() => 0);
    for (const id of ['a', 'b', undefined, undefined]) t.recordFailure(id, '10.0.0.5');
    expect(t.retryAfterSeconds('c', '10.0.0.5')).toBe(60);
    expect(t.retryAfterSeconds(undefined, '10.0.0.5')).toBe(60);
    expect(t.retryAfterSeconds(undefined, '10.0.0.6')).toBe(0);
  });

  it('counts attempts in progress until they settle', () => {
    const t = throttle(() => 0);
    const first = t.begin('lab', '10.0.0.1');
    t.begin('lab', '10.0.0.1');
    expect(t.retryAfterSeconds('lab', '10.0.0.1')).toBe(1);
    first();
    first();
    expect(t.retryAfterSeconds('lab', '10.0.0.1')).toBe(0);
  });

  it('clears failures of an identity at an address on success, but keeps its total', () => {
    const t = throttle(() => 0);
    t.recordFailure('lab', '10.0.0.1');
    t.recordFailure('lab', '10.0.0.2');
    t.recordFailure('lab', '10.0.0.2');
    t.recordSuccess('lab', '10.0.0.1');
    t.recordFailure('lab', '10.0.0.1');
    // Had the success reset the total, 10.0.0.1 (one failure of its own) would be let through.
    expect(t.retryAfterSeconds('lab', '10.0.0.1')).toBe(60);
  });

  it('keeps very long claimed identities apart without keeping them whole', () => {
    const t = throttle(() => 0);
    const long = 'x'.repeat(10_000);
    t.recordFailure(long, '10.0.0.1');
    t.recordFailure(long, '10.0.0.1');
    expect(t.retryAfterSeconds(long, '10.0.0.1')).toBe(60);
    expect(t.retryAfterSeconds(`${long}y`, '10.0.0.1')).toBe(0);
  });
});

describe('LoginThrottle (management API)', () => {
  it('tracks accounts case-insensitively, per address, and never locks an account out at an address that has not failed', () => {
    let now = 0;
    const throttle = new LoginThrottle({ maxFailuresPerAccount: 2, maxFailuresPerAddress: 3, windowSeconds: 60, now: () => now });
    throttle.recordFailure('Bob@x.example', '10.0.0.1');
    throttle.recordFailure('bob@x.example', '10.0.0.1');
    expect(throttle.retryAfterSeconds('BOB@x.example', '10.0.0.1')).toBe(60);
    expect(throttle.retryAfterSeconds('bob@x.example', '10.0.0.2')).toBe(0);
    throttle.recordSuccess('bob@x.example', '10.0.0.2');
    expect(throttle.retryAfterSeconds('bob@x.example', '10.0.0.1')).toBe(60);
    throttle.recordFailure('carol@x.example', '10.0.0.1');
    expect(throttle.retryAfterSeconds('dave@x.example', '10.0.0.1')).toBe(60);
    now = 61_000;
    expect(throttle.retryAfterSeconds('dave@x.example', '10.0.0.1')).toBe(0);
  });
});
