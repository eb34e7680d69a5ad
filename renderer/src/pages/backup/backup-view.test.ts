import { describe, expect, it } from 'vitest';
import { formatBytes, progressPercent } from './backup-view';

describe('the backup page helpers', () => {
  it('write sizes as people read them', () => {
    expect(formatBytes(12)).toBe('12 bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(300 * 1024 * 1024)).toBe('300 MB');
  });

  it('give progress in percent, never past 100', () => {
    const run = { trigger: 'download' as const, startedAt: '', file: 'f', entriesDone: 1, entriesTotal: 2, bytesDone: 50, bytesTotal: 200 };
    expect(progressPercent(run)).toBe(25);
    expect(progressPercent({ ...run, bytesTotal: 0 })).toBe(0);
    expect(progressPercent({ ...run, bytesDone: 300 })).toBe(100);
  });
});
