/**
 * How each configuration collection is laid out: its unique and indexed fields. Every engine creates these when it
 * opens, so a unique field is refused the same way whichever engine stores it.
 */
import type { CollectionSpec } from './store.js';

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
} as const satisfies Record<string, CollectionSpec>;
