/**
 * Rules of the backup archive, without I/O: its manifest (what restore checks before it writes anything), the names
 * of archive entries (what restore may write, and where), the names of scheduled backup files and which to keep.
 */

/** The archive's last entry: every entry before it, in order, with its size and SHA-256. */
export interface BackupManifest {
  format: 'junction-backup';
  formatVersion: 1;
  /** Junction's version that wrote the archive. */
  junctionVersion: string;
  /** ISO time the backup began. */
  created: string;
  entries: BackupManifestEntry[];
}

export interface BackupManifestEntry {
  /** Path relative to the data folder, with `/` separators. */
  name: string;
  size: number;
  sha256: string;
}

/** Name of the manifest entry; never a file of the data folder. */
export const MANIFEST_NAME = 'junction-backup-manifest.json';
export const BACKUP_FORMAT = 'junction-backup';
export const BACKUP_FORMAT_VERSION = 1;

const SEGMENT = /^[A-Za-z0-9._-]{1,128}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Why an entry name may not be written into a data folder, or null when it may: relative, `/`-separated, at most 8
 * levels, each segment plain characters and never `.` or `..`, so an archive cannot write outside the folder.
 */
export function entryNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > 512) return 'its name is empty or too long';
  const segments = name.split('/');
  if (segments.length > 8) return 'its name is nested too deeply';
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..') return `its name "${name}" is not a plain relative path`;
  }
  return null;
}

/** The manifest in `text`, or a reason it is not one this version can restore. */
export function parseManifest(text: string): { manifest: BackupManifest } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'the manifest is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null) return { problem: 'the manifest is not an object' };
  const m = value as Partial<Record<keyof BackupManifest, unknown>>;
  if (m.format !== BACKUP_FORMAT) return { problem: 'it is not a Junction backup (the manifest names another format)' };
  if (m.formatVersion !== BACKUP_FORMAT_VERSION) return { problem: `it was written in backup format ${String(m.formatVersion)}, which this version cannot restore` };
  if (typeof m.junctionVersion !== 'string' || typeof m.created !== 'string' || !Array.isArray(m.entries)) return { problem: 'the manifest lacks its version, date or entries' };
  const names = new Set<string>();
  for (const entry of m.entries as unknown[]) {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Partial<Record<keyof BackupManifestEntry, unknown>>;
    if (typeof e.name !== 'string' || !Number.isSafeInteger(e.size) || (e.size as number) < 0 || typeof e.sha256 !== 'string' || !SHA256.test(e.sha256)) {
      return { problem: 'the manifest has an entry without a valid name, size and SHA-256' };
    }
    const nameProblem = entryNameProblem(e.name);
    if (nameProblem !== null) return { problem: `the manifest lists an entry that cannot be restored: ${nameProblem}` };
    if (names.has(e.name)) return { problem: `the manifest lists ${e.name} twice` };
    names.add(e.name);
  }
  return { manifest: value as BackupManifest };
}

/** Why the entries read from an archive differ from its manifest, or null when they match exactly, in order. */
export function manifestMismatch(manifest: BackupManifest, read: readonly BackupManifestEntry[]): string | null {
  for (let i = 0; i < Math.max(manifest.entries.length, read.length); i++) {
    const want = manifest.entries[i];
    const got = read[i];
    if (want === undefined) return `the archive holds ${got?.name ?? 'an entry'} that its manifest does not list`;
    if (got === undefined) return `the archive lacks ${want.name}, which its manifest lists`;
    if (want.name !== got.name) return `the archive holds ${got.name} where its manifest lists ${want.name}`;
    if (want.size !== got.size) return `${want.name} is ${got.size} bytes where the manifest says ${want.size}`;
    if (want.sha256 !== got.sha256) return `${want.name} does not match its SHA-256 checksum (the archive is damaged)`;
  }
  return null;
}

const ARCHIVE_NAME = /^junction-backup-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:-\d{3})?Z)\.tar\.gz$/;

/**
 * The file name of a backup begun at `at`: `junction-backup-2026-11-24T02-00-00-000Z.tar.gz` (UTC with milliseconds,
 * so names sort by time and two backups a second apart never share one).
 */
export function backupFileName(at: Date): string {
  return `junction-backup-${at.toISOString().slice(0, 23).replace(/[:.]/g, '-')}Z.tar.gz`;
}

/** True for a name `backupFileName` gives. */
export function isBackupFileName(name: string): boolean {
  return ARCHIVE_NAME.test(name);
}

/** Which of the backup files in a folder to delete so that the newest `keep` remain (other files are never touched). */
export function backupsToDelete(names: readonly string[], keep: number): string[] {
  const backups = names.filter(isBackupFileName).sort();
  return backups.slice(0, Math.max(0, backups.length - keep));
}
