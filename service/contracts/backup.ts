/** The backup status the console shows (`GET /backup/status`). */

export type BackupState = 'idle' | 'preparing' | 'writing';
export type BackupTrigger = 'download' | 'schedule';

/** One backup run: in progress (no `finishedAt`) or finished. */
export interface BackupRun {
  trigger: BackupTrigger;
  startedAt: string;
  finishedAt?: string;
  outcome?: 'succeeded' | 'failed';
  /** Why it failed. */
  error?: string;
  /** The file written (scheduled backups) or offered (downloads). */
  file: string;
  entriesDone: number;
  entriesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

/** A scheduled backup kept in `backup.folder`. */
export interface BackupFile {
  name: string;
  size: number;
  created: string;
}

export interface BackupStatus {
  state: BackupState;
  current?: BackupRun;
  last?: BackupRun;
  schedule: {
    enabled: boolean;
    folder: string;
    schedule: string;
    keep: number;
  };
  /** Newest first. */
  recent: BackupFile[];
}
