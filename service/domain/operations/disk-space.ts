/**
 * How full the data folder's disk is, as a level, and when an episode starts and ends (issue 33). Pure: the watcher
 * (disk/watcher.ts) measures and acts on what this decides.
 *
 * - `ok`: nothing to say.
 * - `low`: below the warning threshold: /health, /about and the console warn, and the admins get one alert.
 * - `critical`: below the floor: new transactions are refused with 503 (an AR NAK on message channels) before
 *   anything is written, rather than failing half-way through a body.
 *
 * A level is left only once free space is a margin above its threshold, so a disk hovering at a threshold does not
 * start a new episode (and a new alert) at every check.
 */
import type { DiskLevel } from '../../contracts/vocabulary.js';

export type { DiskLevel };

export interface DiskThresholds {
  /** Below this many free bytes the level is `low` (0: never). */
  warningBytes: number;
  /** Below this many free bytes the level is `critical` (0: never). */
  floorBytes: number;
}

/** The share of a threshold free space must rise above it before the level it caused is left. */
export const RECOVERY_MARGIN = 0.05;

const ORDER: Record<DiskLevel, number> = { ok: 0, low: 1, critical: 2 };

function levelBelow(freeBytes: number, thresholds: DiskThresholds, margin: number): DiskLevel {
  if (freeBytes < thresholds.floorBytes * (1 + margin)) return 'critical';
  if (freeBytes < thresholds.warningBytes * (1 + margin)) return 'low';
  return 'ok';
}

/** The level after a measurement, given the level before it: worse at once, better only past the margin. */
export function nextDiskLevel(previous: DiskLevel, freeBytes: number, thresholds: DiskThresholds): DiskLevel {
  const plain = levelBelow(freeBytes, thresholds, 0);
  if (ORDER[plain] >= ORDER[previous]) return plain;
  // Getting better: only as far as the margin allows, and never worse than the plain level.
  const withMargin = levelBelow(freeBytes, thresholds, RECOVERY_MARGIN);
  return ORDER[withMargin] < ORDER[previous] ? withMargin : previous;
}

/** What changed between two levels, for the watcher to log, alert and refuse once per episode. */
export interface DiskTransition {
  /** A low-space episode starts (the level left `ok`): warn and alert the admins once. */
  episodeStarted: boolean;
  /** Refusing new transactions starts. */
  refusingStarted: boolean;
  /** Refusing stops (space came back above the floor). */
  refusingEnded: boolean;
  /** The episode ends (back to `ok`). */
  episodeEnded: boolean;
}

export function diskTransition(previous: DiskLevel, next: DiskLevel): DiskTransition {
  return {
    episodeStarted: previous === 'ok' && next !== 'ok',
    refusingStarted: previous !== 'critical' && next === 'critical',
    refusingEnded: previous === 'critical' && next !== 'critical',
    episodeEnded: previous !== 'ok' && next === 'ok',
  };
}

/** Bytes as people read them: `1.5 GiB`, `120 MiB`. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? ''}`;
}
