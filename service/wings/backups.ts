/** The backups wing: downloads (`GET /backup`) and the `backup.schedule` job, one run at a time. */
import { Backups } from '../backup/backups.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export function backupsWing(core: Core, storage: Storage): Wing<Backups> {
  const { config, logger, options } = core;
  const backups = new Backups({
    dataDir: config.dataDir,
    storage: storage.backup,
    junctionVersion: options.version,
    settings: config.backup,
    logger: logger.child({ component: 'backup' }),
  });
  return {
    offers: backups,
    // A backup being written is cut short (a partial archive is never kept), so it cannot hold the stop up.
    halt: () => backups.abort(),
    stop: () => backups.settled(),
  };
}
