/**
 * The storage wing: the engine `storage.engine` names (storage/index.ts `createStorage`: the configuration store, the
 * transaction log, bodies, the audit log and its outbox, the keystore's shared document) and this instance's part in
 * a cluster. Nothing here branches on the engine: what differs between engines is a property of the storage.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createStorage } from '../storage/index.js';
import type { StorageBackup } from '../storage/index.js';
import type { RefusalLog } from '../storage/refusals.js';
import type { AuditLog } from '../storage/audits.js';
import type { AuditOutbox } from '../storage/audit-outbox.js';
import type { KeystoreDocumentStore } from '../storage/keystore-document.js';
import type { TransactionLog } from '../storage/transactions.js';
import type { Store } from '../storage/store.js';
import type { Bodies } from '../storage/bodies/bodies.js';
import { RecentBodies } from '../storage/bodies/recent-bodies.js';
import { RecentFinished } from '../storage/recent-finished.js';
import type { SearchIndex } from '../storage/search-index.js';
import { createCluster } from '../cluster/index.js';
import type { Cluster } from '../cluster/index.js';
import type { Core } from './core.js';
import { Topic } from './lifecycle.js';
import type { Wing } from './lifecycle.js';

export interface Storage {
  /** The engine's store, its writes announced to the other instances; the channels wing checks and seals its channels. */
  engine: Store;
  transactions: TransactionLog;
  /** With search on, the records the log's writes just finished, for the indexer to take instead of reading them back. */
  recentFinished: RecentFinished | undefined;
  bodies: Bodies;
  /** The search index beside the transaction log (issue 37), written by the search wing's indexer. */
  searchIndex: SearchIndex;
  /** The ATNA audit repository: received audits and Junction's own audit events. */
  audits: AuditLog;
  /** Refused requests and messages, folded per minute (issue 35); written through the refusals wing's recorder. */
  refusals: RefusalLog;
  /** This instance's part in a cluster on PostgreSQL (instances, job leases, change notices, the shared live feed). */
  cluster: Cluster;
  /** Who claims shared work (storage/claims.ts): this instance on PostgreSQL; alone, the engines' fixed default. */
  claimer: { instance?: string };
  /** Whether new transactions are refused below the data folder's free-space floor (only when they are written there). */
  refuseBelowFloor: boolean;
  /** The keystore's document where instances share it, opened and closed with the storage; undefined: the keystore's own file. */
  openKeystoreDocument: () => Promise<KeystoreDocumentStore | undefined>;
  /** The durable queue of audit events for another repository (`auditEvents.interface` not `internal`). */
  auditOutbox: () => AuditOutbox;
  /** What an online backup copies, or why the engine takes none. */
  backup: StorageBackup;
  /** Another instance changed the channels, the keystore or the console's settings (the channels wing also announces local channel writes). */
  changes: { channels: Topic; keystore: Topic; settings: Topic };
}

export function storageWing(core: Core): Wing<Storage> {
  const { config, logger, options, events, timeZone } = core;
  const instanceId = randomUUID();
  const changes = { channels: new Topic(), keystore: new Topic(), settings: new Topic() };
  const storage = createStorage({ ...config.storage, dataDir: config.dataDir }, { logger, instanceId, metricsTimeZone: timeZone });
  const cluster = createCluster({
    backend: storage.cluster,
    id: instanceId,
    identity: { name: hostname(), version: options.version },
    events,
    // A survivor's part when another instance stopped beating: its transactions left Processing end as a restart's would.
    onInstanceDead: async (id) => {
      const finished = await storage.finishDeadInstance(id);
      logger.warn({ instance: id, transactions: finished }, 'another instance stopped beating; finished the transactions it left open');
    },
    // Another instance's write refreshes here exactly what the same write made here would.
    invalidations: { channels: () => void changes.channels.emit(), keystore: () => changes.keystore.emit(), settings: () => changes.settings.emit() },
    logger,
    timing: { beatMs: config.storage.postgres.cluster.heartbeatMs, deadAfterMs: config.storage.postgres.cluster.deadAfterMs, leaseMs: config.storage.postgres.cluster.leaseMs },
    ...(options.timers === undefined ? {} : { timers: options.timers }),
  });
  // Writes are announced to the other instances (a no-op on the embedded engine).
  const engine = cluster.announce(storage.store);
  // With search on, the indexer takes each new body from memory instead of reading it back (recent-bodies.ts).
  const bodies = config.search.enabled ? new RecentBodies(storage.bodies) : storage.bodies;
  // And each finished record (recent-finished.ts): everything that writes transactions writes them through this log.
  const recentFinished = config.search.enabled ? new RecentFinished() : undefined;
  const transactions = recentFinished === undefined ? storage.transactions : recentFinished.wrap(storage.transactions);
  return {
    offers: {
      engine,
      transactions,
      recentFinished,
      bodies,
      searchIndex: storage.searchIndex,
      audits: storage.audits,
      refusals: storage.refusals,
      cluster,
      claimer: storage.claimer,
      refuseBelowFloor: storage.refuseBelowFloor,
      openKeystoreDocument: () => storage.openKeystoreDocument(),
      auditOutbox: () => storage.auditOutbox(),
      backup: storage.backup,
      changes,
    },
    // Opens the stores (the engine brings in what an earlier version kept elsewhere), then finishes what the last stop interrupted.
    async start() {
      // Listening for the other instances' changes starts before anything is read, so none is missed.
      await cluster.open();
      await engine.open();
      const { interrupted } = await storage.open();
      if (interrupted > 0) logger.warn({ transactions: interrupted }, 'finished the transactions interrupted by the last stop (see storage/interrupted.ts)');
    },
    async stop() {
      // The other instances stop counting this one among the living (and relay nothing more from it).
      await cluster.stop();
      // After the stop event, which the audit log records: the keystore's document, the logs and the bodies.
      await storage.close();
      await engine.close();
    },
  };
}
