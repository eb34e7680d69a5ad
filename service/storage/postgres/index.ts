/** The PostgreSQL storage engine, for several Junction instances sharing one database (issue 20). */
export { PostgresDatabase } from './database.js';
export type { PostgresDatabaseOptions } from './database.js';
export type { PostgresSettings } from './connection.js';
export { createPostgresStore } from './postgres-store.js';
export { SchemaTooNewError } from './errors.js';
export { createPostgresTransactionLog } from './transaction-log.js';
export type { PostgresTransactionLog, PostgresTransactionLogOptions } from './transaction-log.js';
export { createPostgresAuditLog } from './audit-log.js';
export type { PostgresAuditLogOptions } from './audit-log.js';
export { PostgresAuditOutbox } from './audit-outbox.js';
export type { PostgresAuditOutboxOptions } from './audit-outbox.js';
export { PostgresKeystoreDocument } from './keystore-document.js';
export { createPostgresBodies } from './bodies.js';
export { postgresClusterBackend } from './cluster.js';
export { PostgresInstances } from './cluster-instances.js';
export { PostgresLeases } from './cluster-leases.js';
