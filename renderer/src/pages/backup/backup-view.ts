/** Pure helpers of the Backup page: sizes and progress in words. */
import type { BackupRun } from '../../../../service/contracts/backup';

/** Bytes as a person reads them: 1.5 MB, 320 KB, 12 bytes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** Percent of the bytes copied so far (0 while the stores are being copied, before sizes are known). */
export function progressPercent(run: BackupRun): number {
  if (run.bytesTotal <= 0) return 0;
  return Math.min(100, Math.round((run.bytesDone / run.bytesTotal) * 100));
}
