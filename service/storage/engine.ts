/**
 * One storage seam: what an engine (storage/embedded/, storage/postgres/) gives the service, built by
 * `createStorage` (index.ts) from `storage.engine`. Everything the composition root used to branch on the engine for
 * is a property here, so nothing outside `storage/` knows which engine is in use.
 */
import type { Logger } from 'pino';
import type { ClusterBackend } from '../cluster/backend.js';
import type { AuditOutbox } from './audit-outbox.js';
import type { AuditLog } from './audits.js';
import type { Bodies } from './bodies/bodies.js';
import type { KeystoreDocumentStore } from './keystore-document.js';
import type { StorageSnapshotter } from './snapshots.js';
import type { RefusalLog } from './refusals.js';
import type { SearchIndex } from './search-index.js';
import type { Store } from './store.js';
import type { TransactionLog } from './transactions.js';

/** What every engine is told besides its own settings. */
export interface StorageContext {
  logger: Logger;
  /** This instance's id: on a shared database every transaction row and claim names it. */
  instanceId: string;
  /** The zone of the transaction log's metric buckets. */
  metricsTimeZone: string;
}

/** Backups of the whole appliance: a consistent copy of the stores, or why the engine takes none. */
export type StorageBackup = { snapshot: StorageSnapshotter } | { unavailable: string };

/** One engine's stores, built (nothing is opened until `open()`). */
export interface StorageEngine {
  readonly engine: 'embedded' | 'postgres';
  /** The configuration collections, as the engine keeps them (the service wraps them: announced, sealed, checked). */
  readonly store: Store;
  readonly transactions: TransactionLog;
  readonly bodies: Bodies;
  /** The ATNA audit repository and Junction's own audit events. */
  readonly audits: AuditLog;
  /** Requests and messages refused before they became transactions, folded per minute (issue 35). */
  readonly refusals: RefusalLog;
  /** The clinical keys and body words of the transactions (issue 37), in the transaction log's own database. */
  readonly searchIndex: SearchIndex;
  /** The shared database's part in the cluster (instances, leases, notices); undefined when one instance is all. */
  readonly cluster: ClusterBackend | undefined;
  /** The data folder's backups, or why they are refused (a shared database is backed up with its own tools). */
  readonly backup: StorageBackup;
  /** Whether new transactions are refused below the data folder's free-space floor (only when they are written there). */
  readonly refuseBelowFloor: boolean;
  /** Who claims shared work (claims.ts): this instance where instances share the database, else the engines' default. */
  readonly claimer: { instance?: string };
  /**
   * Opens the transaction log, bodies and audit log (the store is opened first by the caller's wrapper), brings older
   * data in (the audits an earlier version kept in NeDB), and resolves with how many transactions the last stop left
   * unfinished and this open finished.
   */
  open(): Promise<{ interrupted: number }>;
  /** The queue of audit messages waiting for another repository (`auditEvents.interface` not `internal`), not yet opened. */
  auditOutbox(): AuditOutbox;
  /** The keystore's document where instances share it, opened (and closed with the storage); undefined: the keystore's file. */
  openKeystoreDocument(): Promise<KeystoreDocumentStore | undefined>;
  /** Finishes the transactions another instance left Processing when it stopped beating; resolves with how many. */
  finishDeadInstance(instanceId: string): Promise<number>;
  /** Closes everything but the store (which the caller's wrapper closes), after the last write. */
  close(): Promise<void>;
}
