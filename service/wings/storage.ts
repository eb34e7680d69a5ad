/**
 * The storage wing: the configuration store, the transaction log, bodies, the audit log and its outbox, the keystore's
 * shared document, and this instance's part in a cluster, on the embedded engines or on PostgreSQL. The only wing
 * that knows which engines are in use.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createNedbStore } from '../storage/nedb/index.js';
import { createSqliteTransactionLog } from '../storage/sqlite/transaction-log.js';
import { SqliteBodyBlobs } from '../storage/sqlite/body-blobs.js';
import { createSqliteAuditLog } from '../storage/sqlite/audit-log.js';
import { SqliteAuditOutbox } from '../storage/sqlite/audit-outbox.js';
import type { AuditLog } from '../storage/audits.js';
import type { AuditOutbox } from '../storage/audit-outbox.js';
import { importNedbAudits } from '../storage/import-nedb-audits.js';
import type { TransactionLog } from '../storage/transactions.js';
import type { Store } from '../storage/store.js';
import { BodyFiles } from '../storage/bodies/body-files.js';
import type { Bodies } from '../storage/bodies/bodies.js';
import { createPostgresAuditLog, createPostgresBodies, createPostgresStore, createPostgresTransactionLog, PostgresAuditOutbox, PostgresDatabase, PostgresKeystoreDocument } from '../storage/postgres/index.js';
import type { PostgresTransactionLog } from '../storage/postgres/index.js';
import { createCluster } from '../cluster/index.js';
import type { Cluster } from '../cluster/index.js';
import type { StoreSnapshotter } from '../storage/snapshots.js';
import type { Core } from './core.js';
import { Topic } from './lifecycle.js';
import type { Wing } from './lifecycle.js';

export interface Storage {
  /** The engine's store, its writes announced to the other instances; the channels wing checks and seals its channels. */
  engine: Store;
  transactions: TransactionLog;
  bodies: Bodies;
  /** The ATNA audit repository: received audits and Junction's own audit events. */
  audits: AuditLog;
  /** This instance's part in a cluster on PostgreSQL (instances, job leases, change notices, the shared live feed). */
  cluster: Cluster;
  /** Who claims shared work (storage/claims.ts): this instance on PostgreSQL; alone, the engines' fixed default. */
  claimer: { instance?: string };
  /** True on the embedded engines, whose files are in the data folder. */
  embedded: boolean;
  /** The keystore's row in the shared database (PostgreSQL only). */
  keystoreDocument?: PostgresKeystoreDocument;
  /** The durable queue of audit events for another repository (`auditEvents.interface` not `internal`). */
  auditOutbox: () => AuditOutbox;
  /** What an online backup copies, and on PostgreSQL why there is none. */
  backup: { source: StoreSnapshotter; unavailable?: string };
  /** Another instance changed the channels or the keystore (the channels wing also announces local channel writes). */
  changes: { channels: Topic; keystore: Topic };
}

export function storageWing(core: Core): Wing<Storage> {
  const { config, logger, options, events, timeZone } = core;
  const instanceId = randomUUID();
  const changes = { channels: new Topic(), keystore: new Topic() };
  const database = config.storage.engine === 'postgres' ? new PostgresDatabase({ settings: config.storage.postgres, logger: logger.child({ component: 'postgres' }) }) : undefined;
  const nedb =
    database === undefined
      ? createNedbStore({ dataDir: config.dataDir, logger: logger.child({ component: 'store' }), compactionIntervalMs: config.storage.compactionIntervalMinutes * 60_000 })
      : undefined;
  let postgresLog: PostgresTransactionLog | undefined;
  const cluster = createCluster({
    ...(database === undefined ? {} : { database }),
    id: instanceId,
    identity: { name: hostname(), version: options.version },
    events,
    // A survivor's part when another instance stopped beating: its transactions left Processing end as a restart's would.
    onInstanceDead: async (id) => {
      const finished = (await postgresLog?.failInterruptedOf(id)) ?? 0;
      logger.warn({ instance: id, transactions: finished }, 'another instance stopped beating; finished the transactions it left open');
    },
    // Another instance's write refreshes here exactly what the same write made here would.
    invalidations: { channels: () => void changes.channels.emit(), keystore: () => changes.keystore.emit() },
    logger,
    timing: { beatMs: config.storage.postgres.cluster.heartbeatMs, deadAfterMs: config.storage.postgres.cluster.deadAfterMs, leaseMs: config.storage.postgres.cluster.leaseMs },
    ...(options.timers === undefined ? {} : { timers: options.timers }),
  });
  const engine = cluster.announce(nedb ?? createPostgresStore(database!));
  const txLogger = logger.child({ component: 'transactions' });
  let transactions: TransactionLog;
  let bodies: Bodies;
  let audits: AuditLog;
  if (database === undefined) {
    transactions = createSqliteTransactionLog({ file: join(config.dataDir, 'transactions.sqlite'), logger: txLogger, metricsTimeZone: timeZone });
    // Small bodies live in bodies.sqlite rather than one file each (see body-blobs.ts).
    bodies = new BodyFiles(join(config.dataDir, 'bodies'), new SqliteBodyBlobs({ file: join(config.dataDir, 'bodies.sqlite'), logger: txLogger }));
    audits = createSqliteAuditLog({ file: join(config.dataDir, 'audits.sqlite'), logger: logger.child({ component: 'audits' }) });
  } else {
    // Every row names the instance that wrote it, so a survivor finishes only a dead instance's Processing rows.
    postgresLog = createPostgresTransactionLog({ database, logger: txLogger, instanceId, metricsTimeZone: timeZone });
    transactions = postgresLog;
    bodies = createPostgresBodies(database);
    audits = createPostgresAuditLog({ database });
  }
  const keystoreDocument = database === undefined ? undefined : new PostgresKeystoreDocument(database);
  return {
    offers: {
      engine,
      transactions,
      bodies,
      audits,
      cluster,
      claimer: database === undefined ? {} : { instance: cluster.instanceId },
      embedded: database === undefined,
      ...(keystoreDocument === undefined ? {} : { keystoreDocument }),
      // On PostgreSQL one queue for every instance, each message claimed by one sender.
      auditOutbox: () => (database === undefined ? new SqliteAuditOutbox({ file: join(config.dataDir, 'audit-outbox.sqlite') }) : new PostgresAuditOutbox({ database, instance: cluster.instanceId })),
      // Online backups copy the store through its engine, which alone knows its files; a shared database is backed up
      // with PostgreSQL's own tools, so there every backup is refused with the reason (config checks refuse backup.folder).
      backup:
        nedb !== undefined
          ? { source: nedb }
          : {
              source: { snapshot: () => Promise.reject(new Error('the PostgreSQL engine has no snapshot')) },
              unavailable: "Junction's own backups copy the embedded engine's files; this installation keeps its data in PostgreSQL, so back up that database with PostgreSQL's tools (pg_dump, or a replica) and keep each instance's keystore secret file",
            },
      changes,
    },
    // Opens the stores (importing the audits an earlier version kept in NeDB, once), then finishes what the last stop interrupted.
    async start() {
      // Listening for the other instances' changes starts before anything is read, so none is missed.
      await cluster.open();
      await engine.open();
      await transactions.open();
      await bodies.open();
      await audits.open();
      if (database === undefined) await importNedbAudits({ file: join(config.dataDir, 'audits.db'), audits, logger: logger.child({ component: 'audits' }) });
      const interrupted = await transactions.failInterrupted();
      if (interrupted > 0) logger.warn({ transactions: interrupted }, 'finished the transactions interrupted by the last stop (see storage/interrupted.ts)');
      await keystoreDocument?.open();
    },
    async stop() {
      // The other instances stop counting this one among the living (and relay nothing more from it).
      await cluster.stop();
      await keystoreDocument?.close();
      // After the stop event, which it records.
      await audits.close();
      await transactions.close();
      await bodies.close();
      await engine.close();
    },
  };
}
