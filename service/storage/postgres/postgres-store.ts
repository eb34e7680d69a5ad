/** The configuration store on PostgreSQL: one table per collection (migrations.ts), over a shared database pool. */
import type { Pool } from 'pg';
import { buildCollections } from '../collection-specs.js';
import { StoreError, StoreOpenError, storeOf } from '../store.js';
import type { Store, StoreHealth, StoreState } from '../store.js';
import { PostgresCollection } from './collection.js';
import type { PostgresCollectionContext } from './collection.js';
import type { PostgresDatabase } from './database.js';

/** Creates the store over `database`; nothing connects until `open()`. */
export function createPostgresStore(database: PostgresDatabase): Store {
  const tables = new PostgresStore(database);
  return storeOf(buildCollections((spec) => new PostgresCollection(spec, tables)), tables);
}

/** The tables' life over the shared pool, and the context every collection queries through. */
class PostgresStore implements Pick<Store, 'open' | 'close' | 'health'>, PostgresCollectionContext {
  private state: StoreState = 'closed';
  private problem: string | null = null;
  private opened: Pool | null = null;
  private opening: Promise<void> | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly database: PostgresDatabase) {}

  async open(): Promise<void> {
    if (this.closing !== null) await this.closing;
    if (this.state === 'ready') return;
    this.opening ??= this.connect().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  async close(): Promise<void> {
    this.closing ??= this.shutDown().finally(() => {
      this.closing = null;
    });
    return this.closing;
  }

  health(): StoreHealth {
    const unreachable = this.state === 'ready' ? this.database.unreachable : null;
    return {
      engine: 'postgres',
      state: this.state,
      problems: this.problem === null ? [] : [{ collection: '*', message: this.problem }],
      ...(unreachable === null ? {} : { unreachable }),
    };
  }

  pool(collection: string): Pool {
    if (this.opened === null || this.closing !== null) {
      const why = this.closing !== null ? 'closing' : this.state === 'failed' ? 'failed to open' : 'not open';
      throw new StoreError(`${collection}: the store is ${why}`);
    }
    return this.opened;
  }

  private async connect(): Promise<void> {
    this.state = 'opening';
    this.problem = null;
    try {
      this.opened = await this.database.acquire();
    } catch (err) {
      this.state = 'failed';
      this.problem = err instanceof StoreOpenError ? err.message : String(err);
      throw err;
    }
    this.state = 'ready';
  }

  private async shutDown(): Promise<void> {
    if (this.opening !== null) await this.opening.catch(() => undefined);
    if (this.opened !== null) {
      this.opened = null;
      await this.database.release();
    }
    this.state = 'closed';
  }
}
