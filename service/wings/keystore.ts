/** The keystore wing: the server certificate, its key and the trusted CAs, re-read when another instance changes them. */
import { Keystore } from '../keystore/keystore.js';
import type { Core } from './core.js';
import type { Storage } from './storage.js';
import type { Wing } from './lifecycle.js';

export async function keystoreWing(core: Core, storage: Storage): Promise<Wing<Keystore>> {
  const { config, logger } = core;
  // The HTTPS transaction port always needs the certificate, even when the API is on plain HTTP.
  // The document instances share, where they share the database; otherwise the keystore's own file.
  const documents = await storage.openKeystoreDocument();
  const keystore = await Keystore.open({
    dataDir: config.dataDir,
    secretFile: config.keystore.secretFile,
    tls: config.tls,
    logger: logger.child({ component: 'keystore' }),
    ...(documents === undefined ? {} : { documents }),
  });
  const unsubscribe = storage.changes.keystore.subscribe(async () => {
    await keystore.reload();
  });
  if (config.api.protocol !== 'https') logger.warn('the management API is on plain HTTP (api.protocol=http): credentials cross the network unencrypted');
  return {
    offers: keystore,
    stop: () => {
      unsubscribe();
      keystore.close();
    },
  };
}
