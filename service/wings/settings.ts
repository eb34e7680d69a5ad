/**
 * The settings wing (issue 35): the settings a clinic changes in the console, saved over the configuration file's,
 * read at start and again whenever another instance saved some (the cluster's `settings` notices). The parts that
 * apply them subscribe to its `onChange` (the notify wing's transports, the console address, the backup job).
 */
import { ClinicSettings } from '../settings/clinic-settings.js';
import type { Keystore } from '../keystore/keystore.js';
import type { Store } from '../storage/store.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export async function settingsWing(core: Core, storage: Storage, store: Store, keystore: Keystore): Promise<Wing<ClinicSettings>> {
  const { config, logger } = core;
  const reported = new Set<string>();
  const settings = new ClinicSettings({
    config,
    collection: store.settings,
    sealer: keystore.textSealer(),
    unreadable: (key, err) => {
      if (reported.has(key)) return;
      reported.add(key);
      logger.error({ setting: key, err }, 'a secret saved in the console cannot be opened with this keystore secret: the configuration file\'s value is used until it is saved again');
    },
  });
  await settings.reload();
  // The console address follows the saved value from now on (the API's own address is filled in once it listens).
  core.console.useConfigured(settings.effective().consoleURL);
  const stopConsole = settings.onChange((s) => core.console.useConfigured(s.consoleURL));
  const stopRemote = storage.changes.settings.subscribe(() => settings.reload());
  return {
    offers: settings,
    stop: () => {
      stopConsole();
      stopRemote();
    },
  };
}
