/**
 * The data folder's free space (issue 33): measured with `fs.statfs` every `storage.disk.checkIntervalSeconds`, at
 * once when a write fails, and again when traffic asks while the last measurement is older than a second (so refusing
 * stops soon after space comes back). domain/operations/disk-space.ts decides the level; this acts on each change once per
 * episode: a warning log line and one alert to the admins when space runs low, an error log line when new
 * transactions start being refused below the floor, and a line when it recovers. Nothing here needs a restart.
 */
import { statfs } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { DiskSpace } from '../contracts/api.js';
import { diskTransition, formatBytes, nextDiskLevel } from '../domain/operations/disk-space.js';
import type { DiskLevel, DiskThresholds } from '../domain/operations/disk-space.js';

/** Free and total bytes of the filesystem holding a folder. */
export type MeasureSpace = (dir: string) => Promise<{ freeBytes: number; totalBytes: number }>;

/** Bytes an unprivileged process may still write (`bavail`, not `bfree`: root's reserve is not Junction's). */
export const measureWithStatfs: MeasureSpace = async (dir) => {
  const stats = await statfs(dir);
  return { freeBytes: stats.bavail * stats.bsize, totalBytes: stats.blocks * stats.bsize };
};

export interface DiskWatcherOptions {
  dir: string;
  thresholds: DiskThresholds;
  intervalMs: number;
  /** Refuse new transactions below the floor (the embedded engine, whose transactions are written in `dir`). */
  refuseBelowFloor: boolean;
  logger: Logger;
  /** Called once when a low-space episode starts (the admins' alert); a failure is logged, never thrown. */
  onLowSpace?: (space: DiskSpace) => Promise<void>;
  measure?: MeasureSpace;
  now?: () => number;
}

/** A measurement on demand is skipped while the last one is younger than this. */
const ON_DEMAND_MIN_AGE_MS = 1000;

/** Also the pipeline's `Admission` (pipeline/admission.ts), which it matches by shape. */
export class DiskWatcher {
  readonly #options: DiskWatcherOptions;
  readonly #measure: MeasureSpace;
  readonly #now: () => number;
  #level: DiskLevel = 'ok';
  #space: DiskSpace | undefined;
  #measuredAt = 0;
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #measureFailed = false;

  constructor(options: DiskWatcherOptions) {
    this.#options = options;
    this.#measure = options.measure ?? measureWithStatfs;
    this.#now = options.now ?? Date.now;
  }

  /** Measures once, then every interval. */
  async start(): Promise<void> {
    await this.check();
    this.#timer = setInterval(() => void this.check(), this.#options.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** The last measurement, or undefined before the first. */
  get space(): DiskSpace | undefined {
    return this.#space;
  }

  /** Words for /health and /about while space is low, or undefined. */
  warning(): string | undefined {
    const space = this.#space;
    if (space === undefined || space.level === 'ok') return undefined;
    const free = `only ${formatBytes(space.freeBytes)} free in the data folder`;
    if (space.refusing) return `${free}, below the floor of ${formatBytes(space.floorBytes)} (storage.disk.floorMB): new transactions are refused until space is freed`;
    return `${free}, below the warning threshold of ${formatBytes(space.warningBytes)} (storage.disk.warningMB): free space before it falls below ${formatBytes(space.floorBytes)}, when new transactions are refused`;
  }

  /**
   * Why a new transaction must be refused now, or undefined when it may go on: cheap (no system call), but starts a
   * new measurement when the last is over a second old, so a disk that was cleaned up is noticed soon.
   */
  refusal(): string | undefined {
    if (this.#now() - this.#measuredAt >= ON_DEMAND_MIN_AGE_MS) void this.check();
    if (this.#space?.refusing !== true) return undefined;
    return `the data folder has only ${formatBytes(this.#space.freeBytes)} free, below the floor of ${formatBytes(this.#space.floorBytes)}; send it again later`;
  }

  /** A write failed: measure now rather than at the next tick. */
  storeFailed(): void {
    void this.check();
  }

  /** Measures now (one measurement at a time; a caller during one waits for it). Never rejects. */
  check(): Promise<void> {
    this.#running ??= this.#check().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #check(): Promise<void> {
    const { dir, thresholds, logger } = this.#options;
    let measured: { freeBytes: number; totalBytes: number };
    try {
      measured = await this.#measure(dir);
    } catch (err) {
      // Keep the last level: a failing measurement says nothing about the space.
      if (!this.#measureFailed) logger.error({ err, dir }, "could not measure the data folder's free space");
      this.#measureFailed = true;
      return;
    } finally {
      this.#measuredAt = this.#now();
    }
    this.#measureFailed = false;
    const previous = this.#level;
    const level = nextDiskLevel(previous, measured.freeBytes, thresholds);
    this.#level = level;
    const space: DiskSpace = {
      level,
      freeBytes: measured.freeBytes,
      totalBytes: measured.totalBytes,
      warningBytes: thresholds.warningBytes,
      floorBytes: thresholds.floorBytes,
      refusing: level === 'critical' && this.#options.refuseBelowFloor,
      checkedAt: new Date(this.#now()).toISOString(),
    };
    this.#space = space;
    const change = diskTransition(previous, level);
    const facts = { dir, freeBytes: space.freeBytes, warningBytes: space.warningBytes, floorBytes: space.floorBytes };
    if (change.episodeStarted) {
      logger.warn(facts, `the data folder is running out of space: ${formatBytes(space.freeBytes)} free`);
      await this.#alert(space);
    }
    if (change.refusingStarted) {
      if (space.refusing) logger.error(facts, 'the data folder is below its free-space floor: new transactions are refused (503, AR NAK) until space is freed');
      else logger.error(facts, 'the data folder is below its free-space floor (transactions are kept in PostgreSQL, so they go on)');
    }
    if (change.refusingEnded && !change.episodeEnded) logger.warn(facts, 'the data folder is above its free-space floor again: new transactions are accepted');
    if (change.episodeEnded) logger.info(facts, 'the data folder has enough free space again');
  }

  async #alert(space: DiskSpace): Promise<void> {
    try {
      await this.#options.onLowSpace?.(space);
    } catch (err) {
      this.#options.logger.error({ err }, 'could not record the low disk space alert to the admins');
    }
  }
}
