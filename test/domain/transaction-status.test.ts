import { describe, expect, it } from 'vitest';
import { computeStatus, parseStatusPattern, statusMatches } from '../../service/domain/transactions/transaction-status.js';

describe('transaction status (SPEC.md table)', () => {
  it('is Successful when the primary and every other route return 2xx', () => {
    expect(computeStatus({ status: 200 }, [{ status: 201 }, { status: 204 }])).toBe('Successful');
    expect(computeStatus({ status: 200 }, [])).toBe('Successful');
  });

  it('is Failed when the primary returns 5xx or never answers, whatever the others did', () => {
    expect(computeStatus({ status: 500 }, [{ status: 200 }])).toBe('Failed');
    expect(computeStatus({ status: 503 }, [])).toBe('Failed');
    expect(computeStatus({}, [{ status: 200 }])).toBe('Failed');
  });

  it('is Completed with error(s) when the primary is not 5xx but another route is (or failed)', () => {
    expect(computeStatus({ status: 200 }, [{ status: 500 }])).toBe('Completed with error(s)');
    expect(computeStatus({ status: 404 }, [{ status: 502 }])).toBe('Completed with error(s)');
    expect(computeStatus({ status: 200 }, [{}])).toBe('Completed with error(s)');
  });

  it('is Completed when nothing is 5xx but something is not 2xx', () => {
    expect(computeStatus({ status: 404 }, [])).toBe('Completed');
    expect(computeStatus({ status: 200 }, [{ status: 401 }])).toBe('Completed');
    expect(computeStatus({ status: 302 }, [{ status: 200 }])).toBe('Completed');
  });

  it("lets a mediator's status win", () => {
    expect(computeStatus({ status: 200 }, [], 'Failed')).toBe('Failed');
    expect(computeStatus({ status: 500 }, [], 'Successful')).toBe('Successful');
  });

  it('parses status patterns', () => {
    expect(parseStatusPattern('5xx')).toEqual({ min: 500, max: 599 });
    expect(parseStatusPattern(401)).toEqual({ min: 401, max: 401 });
    expect(parseStatusPattern('6xx')).toBeNull();
    expect(parseStatusPattern('abc')).toBeNull();
    expect(statusMatches('4xx', 404)).toBe(true);
    expect(statusMatches('4xx', 500)).toBe(false);
    expect(statusMatches('500', 500)).toBe(true);
  });
});
