/**
 * The ready wing, started last: the scheduled jobs start, this instance joins the cluster's living, the start event is
 * recorded and the API's schemas compile in the background. When stopping it goes first: no job starts while the
 * rest winds down.
 */
import { applicationActivityEvent } from '../audit/events.js';
import type { Keystore } from '../keystore/keystore.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Audit } from './audit.js';
import type { Scheduling } from './schedulers.js';
import type { Api } from './api.js';
import type { Listening } from './listen.js';
import type { Wing } from './lifecycle.js';

export interface ReadyParts {
  storage: Storage;
  keystore: Keystore;
  audit: Audit;
  scheduling: Scheduling;
  api: Api;
  listening: Listening;
}

export function readyWing(core: Core, parts: ReadyParts): Wing<undefined> {
  const { config, logger, options } = core;
  const { storage, keystore, audit, scheduling, api, listening } = parts;
  const { cluster } = storage;
  const unsubscribe: (() => void)[] = [];
  return {
    offers: undefined,
    async start() {
      // Each wing applied the change to its own TLS listeners and senders before this, the last subscriber.
      unsubscribe.push(
        keystore.onChange(({ certificate, trustedCAs }) => {
          logger.info({ fingerprint256: certificate.fingerprint256, trustedCAs: trustedCAs.length }, 'applied the keystore to every TLS listener and sender');
          // Told to the other instances, unless this change is one of theirs being applied here.
          cluster.keystoreChanged();
        }),
      );
      unsubscribe.push(storage.changes.channels.subscribe(() => scheduling.polling.changed()));
      scheduling.registry.start();
      // Listed among the live instances (GET /about), and from now on watching for instances that stop beating.
      await cluster.register(listening.apiUrl);
      await audit.recorder.record(applicationActivityEvent('start', config.auditEvents.auditSourceID));
      const { apiUrl, httpUrl, httpsUrl } = listening;
      logger.info({ apiUrl, httpUrl, httpsUrl, version: options.version, dataDir: config.dataDir }, 'Junction is ready');
      api.warmup.start();
    },
    async stop() {
      for (const stop of unsubscribe) stop();
      await scheduling.registry.stop();
    },
  };
}
