/**
 * `junction migrate-to-postgres --from <dataDir> --to <postgres-url> [--tls] [--tls-ca-file <file>]`: copies an
 * embedded data folder (configuration, keystore, transactions with their bodies, audits) into an empty PostgreSQL
 * database, keeping every id. Run it while the service on that folder is stopped; the folder is only read.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { keystorePaths } from '../keystore/keystore.js';
import { migrateInstallation, MigrationRefusedError } from '../storage/migrate-embedded.js';
import type { MigrationCounts } from '../storage/migrate-embedded.js';
import { createPostgresStore, PostgresDatabase, PostgresKeystoreDocument, postgresLogTargets } from '../storage/index.js';
import type { LogTargets, PostgresSettings } from '../storage/index.js';
import { openEmbeddedFolder } from './embedded-folder.js';

const USAGE = 'usage: junction migrate-to-postgres --from <data folder> --to postgres://user:password@host:port/database [--tls] [--tls-ca-file <file>]';

export interface CommandOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

export interface MigrateCommandDeps {
  /** The target's log engines (default: the PostgreSQL ones, storage/postgres/migration-targets.ts). */
  logTargets?: (database: PostgresDatabase, logger: Logger) => LogTargets;
  logger?: Logger;
}

function countsText(counts: MigrationCounts): string[] {
  const documents = Object.entries(counts.collections).filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`);
  return [
    `configuration: ${documents.length === 0 ? 'no documents' : documents.join(', ')}`,
    `keystore: ${counts.keystore ? 'copied (still sealed)' : 'none in the source'}`,
    `transactions: ${counts.transactions}, bodies: ${counts.bodies}${counts.bodiesMissing > 0 ? ` (${counts.bodiesMissing} already removed by retention in the source)` : ''}`,
    `audits: ${counts.audits}`,
  ];
}

/** Runs the command with the arguments after `migrate-to-postgres`; resolves with the process exit code. */
export async function runMigrateCommand(args: readonly string[], output: CommandOutput, deps: MigrateCommandDeps = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: { from: { type: 'string' }, to: { type: 'string' }, tls: { type: 'boolean' }, 'tls-ca-file': { type: 'string' } } });
  } catch (err) {
    output.err(`${(err as Error).message}\n${USAGE}`);
    return 64;
  }
  const { from, to } = parsed.values;
  if (from === undefined || to === undefined) {
    output.err(USAGE);
    return 64;
  }
  const dataDir = resolve(from);
  // A data folder always has its users once Junction has started on it; anything else is a wrong path.
  if (!existsSync(join(dataDir, 'users.db'))) {
    output.err(`${dataDir} is not a Junction data folder (it has no users.db); name the folder with --from`);
    return 64;
  }
  const caFile = parsed.values['tls-ca-file'] ?? '';
  const settings: PostgresSettings = { url: to, host: 'localhost', port: 5432, database: 'junction', user: 'junction', poolSize: 4, tls: { enabled: parsed.values.tls === true || caFile !== '', caFile } };
  const logger = deps.logger ?? pino({ level: 'warn' }, pino.destination(2));
  const database = new PostgresDatabase({ settings, logger });
  const logTargets = (deps.logTargets ?? postgresLogTargets)(database, logger);

  const store = createPostgresStore(database);
  const keystore = new PostgresKeystoreDocument(database);
  const closers: (() => Promise<void>)[] = [];
  try {
    const source = await openEmbeddedFolder(dataDir, logger);
    closers.push(() => source.close());
    await store.open();
    closers.push(() => store.close());
    await keystore.open();
    closers.push(() => keystore.close());
    await logTargets.open();
    closers.push(() => logTargets.close());
    output.out(`Copying ${dataDir} into ${database.schema} of the PostgreSQL database ...`);
    let lastReported = 0;
    const counts = await migrateInstallation(source, { store, keystore, transactions: logTargets.transactions, bodies: logTargets.bodies, audits: logTargets.audits }, {
      onProgress: (stage, so) => {
        // One line per 100,000 transactions, so a large log shows it is moving without flooding the terminal.
        if (stage === 'transactions' && so.transactions - lastReported >= 100_000) {
          lastReported = so.transactions;
          output.out(`  ${so.transactions} transactions copied ...`);
        }
      },
    });
    output.out('Copied:');
    for (const line of countsText(counts)) output.out(`  ${line}`);
    if (counts.keystore) {
      output.out(`The keystore stays sealed with the secret in ${keystorePaths(dataDir, '').secret} (or the file keystore.secretFile named): give every instance a copy of it as keystore.secretFile.`);
    }
    // Rebuilt rather than copied: the target engine keeps it in its own tables, and its indexer starts fresh on them.
    output.out('The search index is not copied: the first instance started on PostgreSQL (with search.enabled) indexes the copied transactions again in the background, newest first (GET /transactions/search-index shows how far it is).');
    output.out('Now start each instance with storage.engine set to postgres and storage.postgres naming this database.');
    return 0;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (err instanceof MigrationRefusedError) output.err(`Migration refused: ${why}`);
    else output.err(`Migration failed: ${why}. The database may hold part of the copy: drop it and create it again before running this again.`);
    return 1;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
