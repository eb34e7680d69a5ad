/**
 * One PostgreSQL database as the engine's stores share it: a connection pool, opened (and the schema migrated) by
 * the first store that needs it and closed when the last one is done with it.
 */
import pg from 'pg';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { StoreError, StoreOpenError } from '../store.js';
import { poolConfig } from './connection.js';
import type { PostgresSettings } from './connection.js';
import { SchemaTooNewError } from './errors.js';
import { migrate } from './migrate.js';
import { migrations } from './migrations.js';

export interface PostgresDatabaseOptions {
  settings: PostgresSettings;
  logger: Logger;
  /** The PostgreSQL schema holding Junction's tables; `public` unless a test keeps stores apart. */
  schema?: string;
}

/** The shared pool of one database; `acquire` and `release` count its users. */
export class PostgresDatabase {
  private pool: Pool | null = null;
  private opening: Promise<Pool> | null = null;
  private users = 0;

  constructor(private readonly options: PostgresDatabaseOptions) {}

  /** The schema this database keeps its tables in. */
  get schema(): string {
    return this.options.schema ?? 'public';
  }

  /** Opens the pool and migrates the schema on first use; rejects with StoreOpenError when either fails. */
  async acquire(): Promise<Pool> {
    this.users += 1;
    try {
      this.opening ??= this.open();
      return await this.opening;
    } catch (err) {
      this.users -= 1;
      this.opening = null;
      throw err;
    }
  }

  /** Gives back what `acquire` gave; the last user's release ends the pool. */
  async release(): Promise<void> {
    if (this.users === 0) return;
    this.users -= 1;
    if (this.users > 0) return;
    const opening = this.opening;
    this.opening = null;
    const pool = await opening?.catch(() => null);
    this.pool = null;
    await pool?.end();
  }

  private async open(): Promise<Pool> {
    const { settings, logger } = this.options;
    const config = poolConfig(settings, this.schema);
    const pool = new pg.Pool(config);
    // An idle connection dropped by the server emits here; unhandled, it would end the process.
    pool.on('error', (err) => logger.warn({ err }, 'an idle PostgreSQL connection failed; the pool opens another when needed'));
    const where = `${config.host ?? '?'}:${config.port ?? '?'}/${config.database ?? '?'}`;
    try {
      const applied = await migrate(pool, this.schema, migrations);
      if (applied.length > 0) logger.info({ versions: applied, database: where }, 'PostgreSQL schema migrated');
    } catch (err) {
      await pool.end().catch(() => undefined);
      if (err instanceof SchemaTooNewError) throw new StoreOpenError('*', where, err.message, { cause: err });
      const why = err instanceof Error ? err.message : String(err);
      if (err instanceof StoreError) throw new StoreOpenError('*', where, why, { cause: err });
      throw new StoreOpenError('*', where, `Cannot open the PostgreSQL database ${where}: ${why}`, { cause: err });
    }
    this.pool = pool;
    return pool;
  }
}
