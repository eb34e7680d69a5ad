import { describe, expect, it } from 'vitest';
import { canRerunChannel, isLaterAttempt, rerunRefusal, rerunWarning } from '../../service/domain/transactions/rerun.js';
import type { RerunnableTransaction } from '../../service/domain/transactions/rerun.js';

const body = (size: number, receivedBytes = size) => ({ path: '2024-01-01/c/b', size, receivedBytes, truncated: receivedBytes > size });
const tx = (method: string, extra: Partial<RerunnableTransaction> = {}): RerunnableTransaction => ({
  status: 'Failed',
  canRerun: true,
  request: { method, path: '/x', querystring: '', headers: {}, timestamp: new Date(), ...(method === 'GET' ? {} : { body: body(10) }) },
  ...extra,
});
const enabled = { name: 'lab', status: 'enabled' as const };

describe('canRerunChannel', () => {
  it('allows admins and members of txRerunAcl only', () => {
    expect(canRerunChannel({ groups: ['admin'] }, { txRerunAcl: [] })).toBe(true);
    expect(canRerunChannel({ groups: ['ops', 'lab'] }, { txRerunAcl: ['lab'] })).toBe(true);
    expect(canRerunChannel({ groups: ['ops'] }, { txRerunAcl: ['lab'] })).toBe(false);
  });
});

describe('rerunRefusal', () => {
  it('accepts a completed transaction whose body (if it needs one) was stored whole', () => {
    expect(rerunRefusal(tx('GET'), enabled)).toBeNull();
    expect(rerunRefusal(tx('POST'), enabled)).toBeNull();
  });

  it('refuses POST, PUT and PATCH without a stored body, and any truncated body, saying why', () => {
    for (const method of ['POST', 'put', 'PATCH']) {
      const request = { method, path: '/x', querystring: '', headers: {}, timestamp: new Date() };
      expect(rerunRefusal(tx(method, { request }), enabled)).toContain('request body was not stored');
    }
    const truncated = tx('POST', { request: { method: 'POST', path: '/x', querystring: '', headers: {}, timestamp: new Date(), body: body(100, 250) } });
    expect(rerunRefusal(truncated, enabled)).toContain('truncated (100 of 250 bytes');
    expect(rerunRefusal(tx('DELETE', { canRerun: false }), enabled)).toContain('not re-runnable');
  });

  it('refuses deleted, missing and disabled channels and transactions still in flight', () => {
    expect(rerunRefusal(tx('GET'), null)).toContain('deleted');
    expect(rerunRefusal(tx('GET'), { name: 'lab', status: 'deleted' })).toContain('deleted');
    expect(rerunRefusal(tx('GET'), { name: 'lab', status: 'disabled' })).toContain('"lab" is disabled');
    expect(rerunRefusal(tx('GET', { status: 'Processing' }), enabled)).toContain('still being processed');
  });
});

describe('rerunWarning', () => {
  it('warns only for a transaction that was already re-run, naming its re-runs', () => {
    expect(rerunWarning({ _id: 'a', wasRerun: false })).toBeNull();
    expect(rerunWarning({ _id: 'a' })).toBeNull();
    expect(rerunWarning({ _id: 'a', wasRerun: true, childIDs: ['b', 'c'] })).toBe('Transaction a was already re-run (as b, c); it is re-run again');
  });
});

describe('isLaterAttempt', () => {
  const at = (id: string, iso: string) => ({ _id: id, request: { timestamp: new Date(iso) } });
  it('orders attempts of a message by request time, then by id within the same millisecond', () => {
    expect(isLaterAttempt(at('b', '2026-12-03T10:00:01Z'), at('a', '2026-12-03T10:00:00Z'))).toBe(true);
    expect(isLaterAttempt(at('a', '2026-12-03T10:00:00Z'), at('b', '2026-12-03T10:00:01Z'))).toBe(false);
    expect(isLaterAttempt(at('b', '2026-12-03T10:00:00Z'), at('a', '2026-12-03T10:00:00Z'))).toBe(true);
    expect(isLaterAttempt(at('a', '2026-12-03T10:00:00Z'), at('a', '2026-12-03T10:00:00Z'))).toBe(false);
  });
});
