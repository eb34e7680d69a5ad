/**
 * One PostgreSQL database as the engine's stores share it: a connection pool, opened (and the schema migrated) by
 * the first store that needs it and closed when the last one is done with it.
 */
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import { StoreError, StoreOpenError } from '../store.js';
import { poolConfig } from './connection.js';
import type { PostgresSettings } from './connection.js';
import { isTimeout, setWriteBounds, WRITE_TIMEOUT_MS } from './deadline.js';
import { SchemaTooNewError, sqlState } from './errors.js';
import { migrate } from './migrate.js';
import { migrations } from './migrations.js';
import { Reachability } from './reachability.js';
import type { Unreachable } from './reachability.js';

/** A SQLSTATE: the server's own answer (an error of the network or a timeout has none, or an errno name). */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** How often an unreachable database is tried again, for /health and the needs-attention list. */
const PROBE_EVERY_MS = 1000;

export interface PostgresDatabaseOptions {
  settings: PostgresSettings;
  logger: Logger;
  /** The PostgreSQL schema holding Junction's tables; `public` unless a test keeps stores apart. */
  schema?: string;
  /** How often an unreachable database is tried again; default 1 s. */
  probeEveryMs?: number;
}

/** The shared pool of one database; `acquire` and `release` count its users. */
export class PostgresDatabase {
  private pool: Pool | null = null;
  private opening: Promise<Pool> | null = null;
  private users = 0;
  private reachability: Reachability | null = null;

  constructor(private readonly options: PostgresDatabaseOptions) {}

  /** Since when and why the server has not answered, while it does not; null while it does (or before opening). */
  get unreachable(): Unreachable | null {
    return this.reachability?.unreachable ?? null;
  }

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
    this.reachability?.stop();
    this.reachability = null;
    await pool?.end();
  }

  private async open(): Promise<Pool> {
    const { settings, logger } = this.options;
    const config = poolConfig(settings, this.schema);
    const pool = new pg.Pool(config);
    const writeTimeoutMs = settings.writeTimeoutMs ?? WRITE_TIMEOUT_MS;
    // A probe answers within the writes' bound or the database counts as away (never less than a second: connecting
    // to a distant server over TLS takes some), so a frozen server shows on /health about when writes start failing.
    const probeMs = Math.min(config.connectionTimeoutMillis ?? 10_000, Math.max(1000, writeTimeoutMs));
    // Whether the last probe went unanswered (no reply at all: refused, cut, or silent) rather than refused by the server.
    let silent = false;
    const probeOnce = () =>
      probe(config, probeMs).then(
        () => {
          silent = false;
        },
        (err: unknown) => {
          silent = !SQLSTATE.test(sqlState(err) ?? '');
          throw err;
        },
      );
    const reachability = new Reachability({ probe: probeOnce, probeEveryMs: this.options.probeEveryMs ?? PROBE_EVERY_MS, logger });
    this.reachability = reachability;
    setWriteBounds(pool, { writeTimeoutMs, timedOut: (err) => reachability.suspect(err) });
    // A statement past its bound anywhere else (pool.query releases its connection with the error, as callers that
    // check one out do) is a suspicion too: the server may be frozen rather than slow.
    pool.on('release', (err: Error | undefined) => {
      if (err !== undefined && isTimeout(err)) reachability.suspect(err);
    });
    // An idle connection dropped by the server emits here; unhandled, it would end the process.
    pool.on('error', (err) => {
      logger.warn({ err }, 'an idle PostgreSQL connection failed; the pool opens another when needed');
      reachability.suspect(err);
    });
    // pg-pool takes its own listener off a connection it hands out, and pg emits 'error' when the server goes away
    // even while a query on it is failing too: without a listener of every connection's own, a database restart
    // under load ended the process. The query's caller still gets the error; this only reports it once.
    pool.on('connect', (client: PoolClient) => {
      client.on('error', (err: Error) => reachability.suspect(err));
    });
    // While the probes get no answer at all, a connection is refused at once rather than after its whole wait: a
    // frozen server would otherwise hold every request (and every source of the needs-attention list) that long. A
    // server that answers, even with a refusal (too many clients), is still tried: open connections may work.
    const away = (): Error | null => {
      const outage = reachability.unreachable;
      if (outage === null || !silent) return null;
      return new Error(`the PostgreSQL database has not answered since ${outage.since} (${outage.error}); it is tried again every ${this.options.probeEveryMs ?? PROBE_EVERY_MS} ms`);
    };
    watchConnects(pool, (err) => reachability.suspect(err), away);
    const where = `${config.host ?? '?'}:${config.port ?? '?'}/${config.database ?? '?'}`;
    try {
      const applied = await migrateUnbounded(config, this.schema);
      if (applied.length > 0) logger.info({ versions: applied, database: where }, 'PostgreSQL schema migrated');
      // A new database (migrated from version 1) has nothing to rebuild: the notices are for upgrades.
      for (const migration of applied[0] === 1 ? [] : migrations) {
        if (migration.notice !== undefined && applied.includes(migration.version)) logger.warn({ version: migration.version, database: where }, migration.notice);
      }
    } catch (err) {
      reachability.stop();
      this.reachability = null;
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

/**
 * The migrations, on a connection of their own without the statement bounds: a migration may rebuild a large table,
 * and waits for another instance's migration (the advisory lock) as long as that takes.
 */
async function migrateUnbounded(config: pg.PoolConfig, schema: string): Promise<number[]> {
  const { query_timeout: _query, statement_timeout: _statement, ...unbounded } = config;
  const pool = new pg.Pool({ ...unbounded, max: 1 });
  pool.on('error', () => undefined);
  try {
    return await migrate(pool, schema, migrations);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** One round trip on a connection of its own, so that a pool busy with traffic is never taken for a server down. */
async function probe(config: pg.PoolConfig, ms: number): Promise<void> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: ms, query_timeout: ms });
  // A probe's own connection may drop too; the rejection below reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

type ConnectCallback = (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * Calls `failed` with every error of `pool.connect` (a refused or timed-out connection), whether a caller checked a
 * connection out or `pool.query` did: pg-pool emits no event for these, and they are how an outage shows when the
 * pool held no open connection to be dropped.
 */
function watchConnects(pool: Pool, failed: (err: Error) => void, away: () => Error | null): void {
  const connect = (pool.connect as (cb: ConnectCallback) => void).bind(pool);
  const watched = (cb?: ConnectCallback): Promise<PoolClient> | undefined => {
    const refused = away();
    if (refused !== null) {
      if (cb === undefined) return Promise.reject(refused);
      process.nextTick(() => cb(refused, undefined, () => undefined));
      return undefined;
    }
    if (cb !== undefined) {
      connect((err, client, done) => {
        if (err !== undefined && err !== null) failed(err);
        cb(err, client, done);
      });
      return undefined;
    }
    return new Promise((resolve, reject) => {
      connect((err, client) => {
        if (err !== undefined && err !== null) {
          failed(err);
          reject(err);
        } else resolve(client as PoolClient);
      });
    });
  };
  (pool as unknown as { connect: typeof watched }).connect = watched;
}
