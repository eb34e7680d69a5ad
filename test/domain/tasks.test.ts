import { describe, expect, it } from 'vitest';
import { parseTaskItemFilters, parseTaskListFilters, taskOutcome, taskStatusChange } from '../../service/domain/transactions/tasks.js';

describe('taskStatusChange', () => {
  it('lets users pause, resume and cancel, and nothing else', () => {
    expect(taskStatusChange('Queued', 'Paused')).toMatchObject({ allowed: true });
    expect(taskStatusChange('Processing', 'Paused')).toMatchObject({ allowed: true });
    expect(taskStatusChange('Paused', 'Queued')).toMatchObject({ allowed: true });
    expect(taskStatusChange('Paused', 'Cancelled')).toMatchObject({ allowed: true });
    expect(taskStatusChange('Processing', 'Queued')).toMatchObject({ allowed: false, reason: 'a Processing task cannot become Queued; only Paused tasks can' });
    expect(taskStatusChange('Completed', 'Cancelled')).toMatchObject({ allowed: false });
    expect(taskStatusChange('Cancelled', 'Paused')).toMatchObject({ allowed: false });
    expect(taskStatusChange('Queued', 'Completed')).toMatchObject({ allowed: false, reason: expect.stringContaining('set by Junction') as string });
    expect(taskStatusChange('Queued', 'Processing')).toMatchObject({ allowed: false });
  });
});

describe('task filters', () => {
  it('parses the task list filters and names each bad key', () => {
    expect(parseTaskListFilters(undefined)).toEqual({ ok: true, filter: {} });
    expect(parseTaskListFilters('{"status":["Queued","Paused"],"user":"A@b.org","created":{"$gte":"2024-01-01"}}')).toEqual({
      ok: true,
      filter: { status: ['Queued', 'Paused'], user: 'a@b.org', from: new Date('2024-01-01') },
    });
    const bad = parseTaskListFilters('{"status":"Done","created":{"$gt":"x"},"colour":1}');
    expect(bad.ok ? [] : bad.problems.map((p) => p.path)).toEqual(['querystring.filters.status', 'querystring.filters.created', 'querystring.filters.colour']);
    expect(parseTaskListFilters('[1]')).toMatchObject({ ok: false, problems: [{ path: 'querystring.filters', message: 'must be a JSON object' }] });
  });

  it('parses the filters of a task’s transactions', () => {
    expect(parseTaskItemFilters('{"tstatus":"Failed","rerunStatus":["Failed"],"hasErrors":true}')).toEqual({
      ok: true,
      filter: { tstatus: ['Failed'], rerunStatus: ['Failed'], hasErrors: true },
    });
    const bad = parseTaskItemFilters('{"tstatus":"Paused","hasErrors":"maybe"}');
    expect(bad.ok ? [] : bad.problems.map((p) => p.path)).toEqual(['querystring.filters.tstatus', 'querystring.filters.hasErrors']);
  });
});

describe('taskOutcome', () => {
  const counts = (total: number, remaining: number, succeeded: number, failed: number) => ({ totalTransactions: total, remainingTransactions: remaining, succeededTransactions: succeeded, failedTransactions: failed });
  it('is failed when every finished re-run failed, whatever the task status, and never succeeded then', () => {
    expect(taskOutcome(counts(11, 0, 0, 11))).toBe('failed');
    expect(taskOutcome(counts(11, 9, 0, 2))).toBe('failed');
  });
  it('is succeeded only when every finished re-run succeeded, mixed otherwise, pending before any finished', () => {
    expect(taskOutcome(counts(3, 0, 3, 0))).toBe('succeeded');
    expect(taskOutcome(counts(3, 0, 2, 1))).toBe('mixed');
    // Re-runs answered Completed (a 4xx) or Completed with error(s) are neither: not a success.
    expect(taskOutcome(counts(3, 0, 2, 0))).toBe('mixed');
    expect(taskOutcome(counts(3, 0, 0, 0))).toBe('mixed');
    expect(taskOutcome(counts(3, 3, 0, 0))).toBe('pending');
    expect(taskOutcome(counts(0, 0, 0, 0))).toBe('pending');
  });
});
