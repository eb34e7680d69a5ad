/** Typed calls of the backup routes (admins). The archive itself is downloaded by the browser from `BACKUP_URL`. */
import type { BackupStatus } from '../../../service/contracts/backup';
import { api } from './client';

/** Where the browser downloads a new backup archive (same origin, session cookie). */
export const BACKUP_URL = '/backup';

/** The current and last backups, the schedule and the scheduled backups kept (`GET /backup/status`). */
export function backupStatus(signal?: AbortSignal): Promise<BackupStatus> {
  return api.get<BackupStatus>('/backup/status', undefined, signal);
}
