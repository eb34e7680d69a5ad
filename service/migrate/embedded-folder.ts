/** The embedded stores of one data folder (storage's layout) and its keystore file, opened together for a copy. */
import type { Logger } from 'pino';
import { FileKeystoreDocument } from '../keystore/file-document.js';
import { keystorePaths } from '../keystore/keystore.js';
import { embeddedStores } from '../storage/index.js';
import type { BodyFiles, InstallationStores } from '../storage/index.js';

/** The folder's stores; `open` opens them all, `close` finishes their writes. */
export interface EmbeddedFolder extends InstallationStores<BodyFiles> {
  open(): Promise<void>;
  close(): Promise<void>;
}

/** The folder's stores, open. */
export type OpenFolder = EmbeddedFolder;

/** The stores of `dataDir` in the service's layout (NeDB, transactions.sqlite, bodies, audits.sqlite, keystore/), not yet opened. */
export function embeddedFolder(dataDir: string, logger: Logger): EmbeddedFolder {
  const { store, transactions, bodies, audits } = embeddedStores({ dataDir, logger });
  const keystore = new FileKeystoreDocument(keystorePaths(dataDir, '').file);
  const opened: { close(): Promise<void> }[] = [];
  const close = async (): Promise<void> => {
    for (const part of opened.splice(0).reverse()) await part.close();
  };
  const open = async (): Promise<void> => {
    try {
      for (const part of [store, transactions, bodies, audits]) {
        await part.open();
        opened.push(part);
      }
    } catch (err) {
      await close().catch(() => undefined);
      throw err;
    }
  };
  return { store, keystore, transactions, bodies, audits, open, close };
}

/** Opens every store of `dataDir` (see embeddedFolder). */
export async function openEmbeddedFolder(dataDir: string, logger: Logger): Promise<OpenFolder> {
  const folder = embeddedFolder(dataDir, logger);
  await folder.open();
  return folder;
}
