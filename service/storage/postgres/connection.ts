/**
 * Turning the `storage.postgres.*` settings into a `pg` pool configuration. TLS always verifies the server's
 * certificate and host name: a database holding patient data is never reached over an unverified channel.
 */
import { readFileSync } from 'node:fs';
import type { PoolConfig } from 'pg';
import { StoreError } from '../store.js';

/** The `storage.postgres` settings (the configuration schema's shape, restated so storage needs nothing of config/). */
export interface PostgresSettings {
  url?: string | undefined;
  host: string;
  port: number;
  database: string;
  user: string;
  password?: string | undefined;
  poolSize: number;
  /** The group commit's window, in milliseconds (transaction-log-batches.ts); the log's default when absent. */
  commitWindowMs?: number | undefined;
  /** The bound on every statement but the log's writes and migrations, in milliseconds; QUERY_TIMEOUT_MS when absent. */
  queryTimeoutMs?: number | undefined;
  /** The bound on one batch of the log's writes (deadline.ts), in milliseconds; WRITE_TIMEOUT_MS when absent. */
  writeTimeoutMs?: number | undefined;
  tls: { enabled: boolean; caFile: string };
}

/** The default of `storage.postgres.queryTimeoutMs`. */
export const QUERY_TIMEOUT_MS = 60_000;

/** Where the engine keeps its tables: a PostgreSQL schema name (tests give each store its own). */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The pool configuration for `settings`; throws StoreError naming what is wrong with the URL or the CA file. */
export function poolConfig(settings: PostgresSettings, schema = 'public', readFile: (path: string) => Buffer = readFileSync): PoolConfig {
  if (!SCHEMA_NAME.test(schema)) throw new StoreError(`PostgreSQL schema name "${schema}" must be lower-case letters, digits and _`);
  const target = settings.url === undefined ? partsOf(settings) : parseUrl(settings.url);
  return {
    ...target,
    max: settings.poolSize,
    ssl: settings.tls.enabled ? { rejectUnauthorized: true, ...caOf(settings.tls.caFile, readFile) } : false,
    // Every unqualified table name the engine uses resolves in its schema.
    options: `-c search_path=${schema}`,
    application_name: 'junction',
    // Bounds a wait for a free connection too, so a request during an outage is refused rather than left waiting.
    connectionTimeoutMillis: 10_000,
    // A server that vanished without closing its connections (a host down, a cut network) is found out by the OS.
    keepAlive: true,
    // A server that keeps its connections open but stops answering (frozen) is not: the kernel still acks. Each
    // statement is bounded here, so nothing waits for it forever; pg-pool destroys a connection released with the
    // timeout's error (pool.query does so) instead of reusing it. The server stops at the same bound, so work nobody
    // waits for any more is not finished; long work raises both for itself (migrations run without them: database.ts).
    query_timeout: settings.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
    statement_timeout: settings.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
  };
}

type Target = Pick<PoolConfig, 'host' | 'port' | 'database' | 'user' | 'password'>;

function partsOf(settings: PostgresSettings): Target {
  return { host: settings.host, port: settings.port, database: settings.database, user: settings.user, password: settings.password };
}

/**
 * Reads the URL's parts here rather than handing it to pg whole, because pg would let a `?sslmode=` in it override
 * the TLS settings; query parameters are refused so that the TLS keys stay the one place TLS is decided.
 */
function parseUrl(text: string): Target {
  const url = URL.canParse(text) ? new URL(text) : null;
  const problem = (what: string): StoreError => new StoreError(`storage.postgres.url ${what}; write postgres://user:password@host:port/database`);
  if (url === null) throw problem('is not a URL');
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw problem(`has the scheme ${url.protocol} instead of postgres:`);
  if (url.hostname === '') throw problem('names no host');
  if (url.search !== '') throw problem('has query parameters (TLS is set by storage.postgres.tls.*)');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (database === '' || database.includes('/')) throw problem('names no database');
  const target: Target = { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port === '' ? 5432 : Number(url.port), database };
  if (url.username !== '') target.user = decodeURIComponent(url.username);
  if (url.password !== '') target.password = decodeURIComponent(url.password);
  return target;
}

function caOf(caFile: string, readFile: (path: string) => Buffer): { ca?: Buffer } {
  if (caFile === '') return {};
  try {
    return { ca: readFile(caFile) };
  } catch (err) {
    throw new StoreError(`storage.postgres.tls.caFile: cannot read ${caFile}: ${(err as Error).message}`, { cause: err });
  }
}
