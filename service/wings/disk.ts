/**
 * The disk wing: the data folder's free space (issue 33), watched from before the first listener opens so a disk
 * already below its floor refuses the first transaction too.
 */
import { DiskWatcher } from '../disk/watcher.js';
import { alertLowSpace } from '../disk/alert.js';
import type { DiskSpace } from '../contracts/api.js';
import type { Store } from '../storage/store.js';
import type { Outbox } from '../notify/outbox.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export interface Disk {
  /** The pipeline's admission: refuses new transactions below the floor (on the embedded engines). */
  watcher: DiskWatcher;
  /** The data folder's space and what an admin should act on now, for /health and /about. */
  condition: () => { disk?: DiskSpace; warnings: string[] };
}

export function diskWing(core: Core, storage: Storage, store: Store, outbox: Outbox): Wing<Disk> {
  const { config, logger, options } = core;
  const mib = 1024 * 1024;
  const { disk } = config.storage;
  const watcher = new DiskWatcher({
    dir: config.dataDir,
    thresholds: { warningBytes: disk.warningMB * mib, floorBytes: disk.floorMB * mib },
    intervalMs: disk.checkIntervalSeconds * 1000,
    // On PostgreSQL the transactions are not written to this disk, so its space does not stop them.
    refuseBelowFloor: storage.refuseBelowFloor,
    logger: logger.child({ component: 'disk' }),
    onLowSpace: (space) => alertLowSpace(space, { users: store.users, outbox, instance: config.alerts.himInstance, dir: config.dataDir }),
    ...(options.measureDisk === undefined ? {} : { measure: options.measureDisk }),
  });
  const condition = () => {
    const space = watcher.space;
    const diskWarning = watcher.warning();
    return {
      ...(space === undefined ? {} : { disk: space }),
      warnings: [...(diskWarning === undefined ? [] : [diskWarning]), ...(options.logProblems?.() ?? [])],
    };
  };
  return { offers: { watcher, condition }, start: () => watcher.start(), halt: () => watcher.stop() };
}
