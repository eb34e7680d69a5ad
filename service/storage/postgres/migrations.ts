import { keystoreMigration } from './keystore-migration.js';
import { settingsMigration } from './settings-migration.js';

/**
 * The PostgreSQL schema, one versioned migration at a time. A migration is never edited once released: a change to
 * the layout (a new collection, a new index in collection-specs.ts) is a new migration at the end of the list.
 * test/storage/postgres-migrations.test.ts checks that the migrated schema indexes every field collection-specs.ts
 * names, so a spec change without its migration fails there.
 */
import { CHANGED_ENTRIES_MIGRATION, TRANSACTION_LOG_SQL } from './transaction-log-schema.js';
import { AUDITS_MIGRATION } from './audit-schema.js';
import { clusterMigration } from './cluster-migration.js';
import { BODIES_SQL } from './bodies-schema.js';
import { REFUSALS_MIGRATION } from './refusal-log.js';
import { SEARCH_INDEX_MIGRATION, SMALLER_SEARCH_INDEX_MIGRATION } from './search-schema.js';

export interface Migration {
  version: number;
  name: string;
  /** One or more statements, run in one transaction. */
  sql: string;
  /** What an administrator should know once it has run (a rebuild it starts), logged when it is applied. */
  notice?: string;
}

/** The table of a configuration collection: `channelAudits` is kept in `store_channel_audits`. */
export function collectionTable(collection: string): string {
  return `store_${collection.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
}

/** The name of the unique index on `field` of `table`; the collection maps a violated index back to its field. */
export function uniqueIndexName(table: string, field: string): string {
  return `${table}_u_${field.replace(/\./g, '_').toLowerCase()}`;
}

function indexName(table: string, field: string): string {
  return `${table}_i_${field.replace(/\./g, '_').toLowerCase()}`;
}

/** `doc #> '{a,b}'`: the value at a dotted path, as the indexes and the queries both write it. */
function pathExpression(field: string): string {
  return `(doc #> '{${field.split('.').join(',')}}')`;
}

/**
 * The collections as they were at version 1, written out rather than read from collection-specs.ts, so that a later
 * change to the specs cannot silently rewrite a migration that databases have already run.
 */
const collectionsV1: readonly { name: string; unique: readonly string[]; indexed: readonly string[] }[] = [
  { name: 'users', unique: ['email'], indexed: [] },
  { name: 'sessions', unique: ['tokenHash'], indexed: ['userId', 'expiresAt'] },
  { name: 'channels', unique: [], indexed: ['status', 'name'] },
  { name: 'channelAudits', unique: [], indexed: ['ref', 'date'] },
  { name: 'clients', unique: ['clientID', 'customTokenHash', 'certFingerprint'], indexed: ['clientDomain', 'roles'] },
  { name: 'mediators', unique: ['urn'], indexed: [] },
  { name: 'tasks', unique: [], indexed: ['status', 'created'] },
  { name: 'taskTransactions', unique: [], indexed: ['taskID', 'tstatus'] },
  { name: 'autoRetries', unique: [], indexed: [] },
  { name: 'contactGroups', unique: ['group'], indexed: [] },
  { name: 'notifications', unique: ['key'], indexed: ['status', 'created', 'alert.ruleKey'] },
  { name: 'jobStates', unique: ['name'], indexed: [] },
];

function collectionsSql(): string {
  return collectionsV1.map(({ name, unique, indexed }) => {
    const table = collectionTable(name);
    return [
      // The document keeps its _id too, so filters on _id work like filters on any field; `id` is the key.
      `CREATE TABLE ${table} (id text PRIMARY KEY, doc jsonb NOT NULL)`,
      // Can serve the equality and $in filters (jsonpath @? queries) on any field, when the planner judges it cheaper.
      `CREATE INDEX ${table}_doc ON ${table} USING gin (doc jsonb_path_ops)`,
      // Unique among the documents that have the field, as in the embedded store.
      ...unique.map((f) => `CREATE UNIQUE INDEX ${uniqueIndexName(table, f)} ON ${table} (${pathExpression(f)}) WHERE ${pathExpression(f)} IS NOT NULL`),
      ...indexed.map((f) => `CREATE INDEX ${indexName(table, f)} ON ${table} (${pathExpression(f)})`),
    ].join(';\n');
  }).join(';\n');
}

/** The name of the partial index of the documents whose `field` is an array. */
export function arrayIndexName(table: string, field: string): string {
  return `${table}_a_${field.toLowerCase()}`;
}

/**
 * Version 2: for each unique or indexed plain field, a partial index of the documents where that field is an array,
 * so that the index-served lookups (index-lookups.ts) can also reach array values without a sequential scan; it is
 * empty for fields that are never arrays. The predicate is written out here, as the queries write it, for the same
 * reason the collections are: released migrations never change. Dotted fields get no pre-filter, so no index.
 */
function arrayIndexesSql(): string {
  return collectionsV1.flatMap(({ name, unique, indexed }) => {
    const table = collectionTable(name);
    return [...unique, ...indexed].filter((f) => !f.includes('.')).map((f) =>
      `CREATE INDEX ${arrayIndexName(table, f)} ON ${table} (id) WHERE jsonb_typeof((doc #> '{${f}}')) = 'array'`);
  }).join(';\n');
}

/** Every migration, oldest first; versions count up from 1 without gaps. */
export const migrations: readonly Migration[] = [
  { version: 1, name: 'configuration collections', sql: collectionsSql() },
  { version: 2, name: 'array indexes for index-served lookups', sql: arrayIndexesSql() },
  { version: 3, name: 'transaction log', sql: TRANSACTION_LOG_SQL },
  { version: 4, name: 'bodies', sql: BODIES_SQL },
  AUDITS_MIGRATION,
  clusterMigration,
  keystoreMigration,
  settingsMigration,
  REFUSALS_MIGRATION,
  SEARCH_INDEX_MIGRATION,
  SMALLER_SEARCH_INDEX_MIGRATION,
  CHANGED_ENTRIES_MIGRATION,
];
