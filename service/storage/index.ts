/**
 * The storage seam's front door: `createStorage` builds the engine `storage.engine` names (embedded/ or postgres/),
 * and the few engine-specific tools other folders need (the copy into PostgreSQL, migrate/) are reached from here,
 * so nothing outside `storage/` imports an engine folder.
 */
import type { StorageContext, StorageEngine } from './engine.js';
import { createEmbeddedStorage } from './embedded/index.js';
import type { EmbeddedSettings } from './embedded/index.js';
import { createPostgresStorage } from './postgres/engine.js';
import type { PostgresSettings } from './postgres/connection.js';

export type { StorageBackup, StorageContext, StorageEngine } from './engine.js';

/** The storage part of the configuration (`storage.*` and `dataDir`). */
export interface StorageSettings extends EmbeddedSettings {
  engine: 'embedded' | 'postgres';
  postgres: PostgresSettings;
}

/** Builds the configured engine's stores; nothing is opened or connected until their `open()`. */
export function createStorage(settings: StorageSettings, context: StorageContext): StorageEngine {
  return settings.engine === 'postgres' ? createPostgresStorage(settings.postgres, context) : createEmbeddedStorage(settings, context);
}

// For the copy of an embedded data folder into PostgreSQL (`junction migrate-to-postgres`, migrate/).
export { embeddedStores } from './embedded/layout.js';
export type { EmbeddedStores } from './embedded/layout.js';
export type { BodyFiles } from './bodies/body-files.js';
export type { InstallationStores } from './migrate-embedded.js';
export { createPostgresStore, PostgresDatabase, PostgresKeystoreDocument } from './postgres/index.js';
export type { PostgresSettings } from './postgres/index.js';
export { postgresLogTargets } from './postgres/migration-targets.js';
export type { LogTargets } from './postgres/migration-targets.js';
