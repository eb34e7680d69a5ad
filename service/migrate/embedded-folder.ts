/** The embedded engines of one data folder, as the service lays them out, opened together for a copy. */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { FileKeystoreDocument } from '../keystore/file-document.js';
import { keystorePaths } from '../keystore/keystore.js';
import { BodyFiles } from '../storage/bodies/body-files.js';
import type { InstallationStores } from '../storage/migrate-embedded.js';
import { createNedbStore } from '../storage/nedb/index.js';
import { createSqliteAuditLog } from '../storage/sqlite/audit-log.js';
import { SqliteBodyBlobs } from '../storage/sqlite/body-blobs.js';
import { createSqliteTransactionLog } from '../storage/sqlite/transaction-log.js';

/** The folder's stores; `open` opens them all, `close` finishes their writes. */
export interface EmbeddedFolder extends InstallationStores<BodyFiles> {
  open(): Promise<void>;
  close(): Promise<void>;
}

/** The folder's stores, open. */
export type OpenFolder = EmbeddedFolder;

/** The stores of `dataDir` in app.ts's layout (NeDB, transactions.sqlite, bodies, audits.sqlite, keystore/), not yet opened. */
export function embeddedFolder(dataDir: string, logger: Logger): EmbeddedFolder {
  const store = createNedbStore({ dataDir, logger });
  const transactions = createSqliteTransactionLog({ file: join(dataDir, 'transactions.sqlite'), logger });
  const bodies = new BodyFiles(join(dataDir, 'bodies'), new SqliteBodyBlobs({ file: join(dataDir, 'bodies.sqlite'), logger }));
  const audits = createSqliteAuditLog({ file: join(dataDir, 'audits.sqlite'), logger });
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
