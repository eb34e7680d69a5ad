/** The PostgreSQL storage engine, for several Junction instances sharing one database (issue 20). */
export { PostgresDatabase } from './database.js';
export type { PostgresDatabaseOptions } from './database.js';
export type { PostgresSettings } from './connection.js';
export { createPostgresStore } from './postgres-store.js';
export { SchemaTooNewError } from './errors.js';
export { createPostgresBodies } from './bodies.js';
