import { describe, expect, it } from 'vitest';
import { afterFailedTry, retryDelayMs } from '../../service/domain/alerts/delivery-retry.js';

describe('retryDelayMs', () => {
  it('starts at 30 s and doubles up to one hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => retryDelayMs(n) / 1000)).toEqual([30, 60, 120, 240, 480, 960, 1920, 3600, 3600]);
    expect(retryDelayMs(1000)).toBe(3_600_000);
  });

  it('treats zero tries as the first', () => {
    expect(retryDelayMs(0)).toBe(30_000);
  });
});

describe('afterFailedTry', () => {
  const now = new Date('2026-03-01T10:00:00Z');

  it('plans the next try after the backoff while tries remain', () => {
    expect(afterFailedTry(1, 3, now)).toEqual({ status: 'pending', nextAttemptAt: new Date('2026-03-01T10:00:30Z') });
    expect(afterFailedTry(2, 3, now)).toEqual({ status: 'pending', nextAttemptAt: new Date('2026-03-01T10:01:00Z') });
  });

  it('fails for good once maxAttempts tries were made', () => {
    expect(afterFailedTry(3, 3, now)).toEqual({ status: 'failed' });
    expect(afterFailedTry(1, 1, now)).toEqual({ status: 'failed' });
  });

  it('fails a permanent failure at once', () => {
    expect(afterFailedTry(1, 10, now, true)).toEqual({ status: 'failed' });
  });
});
