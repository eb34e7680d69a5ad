/**
 * Storage interfaces. Only `app.ts` knows which implementation is in use; everything else sees these types.
 *
 * Two kinds of data live in storage, each behind its own interface:
 * - configuration collections (users, sessions, channels, clients, ...): small, one `Collection` each, together the
 *   `Store` (NeDB in the embedded default);
 * - the transaction log (`TransactionLog` in transactions.ts): a time series with its own queries (newest first,
 *   filtered, streamed) and retention by whole days (SQLite in the embedded default). Bodies are kept beside it
 *   (storage/bodies/);
 * - the audit log (`AuditLog` in audits.ts): the ATNA repository's records, another time series (SQLite too).
 *
 * The query language is deliberately small so that every engine (NeDB, PostgreSQL) can honour it exactly.
 */
import { collectionsOf } from './collection-specs.js';
import type { StoreCollections } from './collection-specs.js';
import type { StoredDoc } from './records.js';

export type Scalar = string | number | boolean | Date | null;

/** Operators on one field. A scalar matches by equality; on an array field it matches when the array contains it. */
export interface FieldOperators {
  $in?: readonly Scalar[];
  $nin?: readonly Scalar[];
  $ne?: Scalar;
  $gt?: Scalar;
  $gte?: Scalar;
  $lt?: Scalar;
  $lte?: Scalar;
  $exists?: boolean;
}

export type Condition = Scalar | FieldOperators;

/** A filter: every listed field must match (AND); `$or` adds alternatives. Field names may be dotted paths. */
export type Filter = { readonly [field: string]: Condition | readonly Filter[] | undefined } & {
  readonly $or?: readonly Filter[];
};

export type SortOrder = 1 | -1;

export interface FindOptions {
  /** Fields in priority order; 1 ascending, -1 descending. */
  sort?: Readonly<Record<string, SortOrder>>;
  skip?: number;
  limit?: number;
}

/** A document as given to `insert`: the store assigns `_id` unless one is supplied. */
export type NewDoc<T extends StoredDoc> = Omit<T, '_id'> & { _id?: string };

/** Changes for `update*`: `set` replaces the listed top-level fields, `unset` removes fields. */
export interface Changes<T extends StoredDoc> {
  set?: Partial<Omit<T, '_id'>>;
  unset?: readonly Exclude<keyof T, '_id'>[];
}

/** One collection of small documents. All methods reject with a `StoreError` subclass on failure. */
export interface Collection<T extends StoredDoc> {
  readonly name: string;
  /** Inserts one document and returns it as stored. Rejects with `UniqueConstraintError` on a duplicate key. */
  insert(doc: NewDoc<T>): Promise<T>;
  findById(id: string): Promise<T | null>;
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  count(filter: Filter): Promise<number>;
  /** Applies changes to one document and returns the updated document, or null when no document has that id. */
  updateById(id: string, changes: Changes<T>): Promise<T | null>;
  /** Applies the same changes to every matching document and returns how many changed. */
  updateMany(filter: Filter, changes: Changes<T>): Promise<number>;
  /** Returns true when a document was removed. */
  removeById(id: string): Promise<boolean>;
  /** Returns how many documents were removed. */
  removeMany(filter: Filter): Promise<number>;
}

/** How a collection is laid out: the store creates these indexes when it opens. */
export interface CollectionSpec {
  name: string;
  /** Fields (or dotted paths) that must be unique among documents that have them. */
  unique: readonly string[];
  /** Fields (or dotted paths) worth an index for lookups. */
  indexed: readonly string[];
}

export type StoreState = 'closed' | 'opening' | 'ready' | 'failed';

export interface StoreHealth {
  /** The engine's name, as the health and about answers show it (`nedb` for the embedded store). */
  engine: string;
  state: StoreState;
  /** Collections whose last write or compaction failed, with the reason. Empty when healthy. */
  problems: { collection: string; message: string }[];
  /** A database server that does not answer (PostgreSQL): since when (ISO 8601) and the last error. */
  unreachable?: { since: string; error: string };
}

/**
 * The configuration collections of one Junction installation (the transaction log is a separate `TransactionLog`):
 * the collections listed once in collection-specs.ts, and their life.
 */
export interface Store extends StoreCollections {
  /** Loads every collection. Rejects with `StoreOpenError` naming the damaged or unreadable file. */
  open(): Promise<void>;
  /** Finishes pending writes, compacts and releases files. Safe to call twice. */
  close(): Promise<void>;
  health(): StoreHealth;
}

/** Base class for storage failures. */
export class StoreError extends Error {
  override readonly name: string = 'StoreError';
}

/**
 * A write on the transaction path failed in the store itself (a full disk, a lost database connection): the caller
 * answers 503 STORE_UNAVAILABLE, never 500, because the sender may simply try again later.
 */
export class StoreWriteError extends StoreError {
  override readonly name = 'StoreWriteError';
  constructor(what: string, cause: unknown) {
    super(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A collection's data could not be loaded; `file` names what to inspect or restore. */
export class StoreOpenError extends StoreError {
  override readonly name = 'StoreOpenError';
  constructor(
    readonly collection: string,
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An insert or update would duplicate a unique field. */
export class UniqueConstraintError extends StoreError {
  override readonly name = 'UniqueConstraintError';
  constructor(
    readonly collection: string,
    readonly field: string,
    options?: { cause?: unknown },
  ) {
    super(`${collection}: a document with the same ${field} already exists`, options);
  }
}

/** A store of `collections` whose life (open, close, health) is `life`'s. */
export function storeOf(collections: StoreCollections, life: Pick<Store, 'open' | 'close' | 'health'>): Store {
  return { ...collections, open: () => life.open(), close: () => life.close(), health: () => life.health() };
}

/** `store` with its channels collection replaced by `channels` (a wrapper that checks, observes or seals them). */
export function withChannels(store: Store, channels: Store['channels']): Store {
  return storeOf({ ...collectionsOf(store), channels }, store);
}
