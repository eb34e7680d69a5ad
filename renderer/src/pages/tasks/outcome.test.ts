import { describe, expect, it } from 'vitest';
import type { TaskView } from '../../../../service/contracts/tasks';
import { outcomeWarning, outcomeWords, statusColor } from './outcome';

type Counted = Pick<TaskView, 'status' | 'outcome' | 'totalTransactions' | 'remainingTransactions' | 'succeededTransactions' | 'failedTransactions'>;
const task = (patch: Partial<Counted>): Counted => ({ status: 'Completed', outcome: 'succeeded', totalTransactions: 3, remainingTransactions: 0, succeededTransactions: 3, failedTransactions: 0, ...patch });

describe('task outcome in words and colour', () => {
  it('never shows a completed task whose re-runs all failed in green', () => {
    const failed = task({ outcome: 'failed', succeededTransactions: 0, failedTransactions: 11, totalTransactions: 11 });
    expect(statusColor(failed)).toBe('red');
    expect(outcomeWords(failed)).toBe('All 11 failed');
    expect(outcomeWarning(failed)).toMatchObject({ color: 'red', title: 'Every re-run failed' });
  });

  it('says a mixed outcome as a warning, counting the re-runs answered with problems', () => {
    const mixed = task({ outcome: 'mixed', totalTransactions: 4, succeededTransactions: 2, failedTransactions: 1 });
    expect(statusColor(mixed)).toBe('yellow');
    expect(outcomeWords(mixed)).toBe('2 succeeded, 1 failed, 1 with problems');
    expect(outcomeWarning(mixed)?.text).toContain('1 failed and 1 were answered with problems');
  });

  it('keeps green for success and the status colours while a task runs', () => {
    expect(statusColor(task({}))).toBe('teal');
    expect(outcomeWords(task({}))).toBe('All 3 succeeded');
    expect(outcomeWarning(task({}))).toBeNull();
    const running = task({ status: 'Processing', remainingTransactions: 2, succeededTransactions: 1 });
    expect(statusColor(running)).toBe('cyan');
    expect(outcomeWords(running)).toBe('1 succeeded so far');
    expect(outcomeWords(task({ status: 'Queued', outcome: 'pending', remainingTransactions: 3, succeededTransactions: 0 }))).toBeNull();
    expect(outcomeWords(task({ status: 'Cancelled', outcome: 'failed', remainingTransactions: 1, succeededTransactions: 0, failedTransactions: 2 }))).toBe('2 failed');
  });
});
