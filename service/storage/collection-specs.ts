/**
 * The configuration collections, declared once: the record each holds (`CollectionRecords`) and how it is laid out
 * (`collectionSpecs`: its unique and indexed fields, which every engine creates when it opens, so a unique field is
 * refused the same way whichever engine stores it). The `Store` interface, each engine's collections and every
 * wrapper of a store are built from these, so a new collection is one entry in each.
 */
import type { ChannelAuditRecord, ChannelRecord, ClientRecord, MediatorRecord, SessionRecord, UserRecord } from './records.js';
import type { AutoRetryRecord, ContactGroupRecord, JobStateRecord, NotificationRecord, SettingRecord, TaskRecord, TaskTransactionRecord } from './records.js';
import type { Collection, CollectionSpec } from './store.js';

/** The record each configuration collection holds. */
export interface CollectionRecords {
  users: UserRecord;
  sessions: SessionRecord;
  channels: ChannelRecord;
  /** Every create, update and delete of a channel, as JSON Patch operations. */
  channelAudits: ChannelAuditRecord;
  clients: ClientRecord;
  mediators: MediatorRecord;
  tasks: TaskRecord;
  taskTransactions: TaskTransactionRecord;
  /** Transactions queued for auto retry. */
  autoRetries: AutoRetryRecord;
  /** Contact groups: named lists of alert recipients, which channel alerts name by `_id`. */
  contactGroups: ContactGroupRecord;
  /** Alerts, reports and other messages to people, with their outcome (contracts/notifications.ts). */
  notifications: NotificationRecord;
  /** What scheduled jobs keep between runs, by job name. */
  jobStates: JobStateRecord;
  /** Settings saved in the console (email, SMS, the console's address, backups), one per key, over the file's. */
  settings: SettingRecord;
}

export type CollectionName = keyof CollectionRecords;

/** Every configuration collection of one installation, as a store offers them. */
export type StoreCollections = { readonly [K in CollectionName]: Collection<CollectionRecords[K]> };

/** Layout of every configuration collection, keyed like the collections of `Store`. */
export const collectionSpecs = {
  users: { name: 'users', unique: ['email'], indexed: [] },
  sessions: { name: 'sessions', unique: ['tokenHash'], indexed: ['userId', 'expiresAt'] },
  // Names are unique among live channels only (a deleted one frees its name): storage/live-channel-names.ts checks it.
  channels: { name: 'channels', unique: [], indexed: ['status', 'name'] },
  // The change history of channels (GET /channels/:id/audits), read by channel, newest first.
  channelAudits: { name: 'channelAudits', unique: [], indexed: ['ref', 'date'] },
  clients: { name: 'clients', unique: ['clientID', 'customTokenHash', 'certFingerprint'], indexed: ['clientDomain', 'roles'] },
  mediators: { name: 'mediators', unique: ['urn'], indexed: [] },
  tasks: { name: 'tasks', unique: [], indexed: ['status', 'created'] },
  taskTransactions: { name: 'taskTransactions', unique: [], indexed: ['taskID', 'tstatus'] },
  autoRetries: { name: 'autoRetries', unique: [], indexed: [] },
  contactGroups: { name: 'contactGroups', unique: ['group'], indexed: [] },
  // Read by status and due time (delivery), by creation time (listing, expiry) and by alert rule (de-duplication).
  notifications: { name: 'notifications', unique: ['key'], indexed: ['status', 'created', 'alert.ruleKey'] },
  jobStates: { name: 'jobStates', unique: ['name'], indexed: [] },
  settings: { name: 'settings', unique: ['key'], indexed: [] },
} as const satisfies Record<CollectionName, CollectionSpec>;

/** The collection names, in the order above. */
export const COLLECTION_NAMES = Object.keys(collectionSpecs) as CollectionName[];

/** An engine's collections, one made by `make` from each spec (the engine's collection class serves every record type). */
export function buildCollections(make: (spec: CollectionSpec) => Collection<never>): StoreCollections {
  return Object.fromEntries(COLLECTION_NAMES.map((name) => [name, make(collectionSpecs[name])])) as unknown as StoreCollections;
}

/** The collections of `store`, without its other members. */
export function collectionsOf(store: StoreCollections): StoreCollections {
  return Object.fromEntries(COLLECTION_NAMES.map((name) => [name, store[name]])) as unknown as StoreCollections;
}
