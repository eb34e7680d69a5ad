import { describe, expect, it } from 'vitest';
import { diskTransition, formatBytes, nextDiskLevel } from '../../service/domain/operations/disk-space.js';

const MiB = 1024 * 1024;
const thresholds = { warningBytes: 100 * MiB, floorBytes: 10 * MiB };

describe('disk space levels', () => {
  it('gets worse at once', () => {
    expect(nextDiskLevel('ok', 200 * MiB, thresholds)).toBe('ok');
    expect(nextDiskLevel('ok', 99 * MiB, thresholds)).toBe('low');
    expect(nextDiskLevel('ok', 9 * MiB, thresholds)).toBe('critical');
    expect(nextDiskLevel('low', 9 * MiB, thresholds)).toBe('critical');
  });

  it('gets better only past a 5% margin, so a disk hovering at a threshold starts no new episode', () => {
    expect(nextDiskLevel('critical', 10.2 * MiB, thresholds)).toBe('critical');
    expect(nextDiskLevel('critical', 11 * MiB, thresholds)).toBe('low');
    expect(nextDiskLevel('low', 102 * MiB, thresholds)).toBe('low');
    expect(nextDiskLevel('low', 106 * MiB, thresholds)).toBe('ok');
    expect(nextDiskLevel('critical', 500 * MiB, thresholds)).toBe('ok');
  });

  it('is off with thresholds of 0', () => {
    expect(nextDiskLevel('ok', 0, { warningBytes: 0, floorBytes: 0 })).toBe('ok');
  });

  it('says when an episode and the refusing start and end', () => {
    expect(diskTransition('ok', 'low')).toEqual({ episodeStarted: true, refusingStarted: false, refusingEnded: false, episodeEnded: false });
    expect(diskTransition('low', 'critical')).toEqual({ episodeStarted: false, refusingStarted: true, refusingEnded: false, episodeEnded: false });
    expect(diskTransition('critical', 'ok')).toEqual({ episodeStarted: false, refusingStarted: false, refusingEnded: true, episodeEnded: true });
    expect(diskTransition('low', 'low')).toEqual({ episodeStarted: false, refusingStarted: false, refusingEnded: false, episodeEnded: false });
  });

  it('words bytes for people', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(5 * MiB)).toBe('5.0 MiB');
    expect(formatBytes(1536 * MiB)).toBe('1.5 GiB');
  });
});
