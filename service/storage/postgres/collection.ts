/** One configuration collection in its own table: the document as jsonb, keyed by its `_id`. */
import type { Pool } from 'pg';
import { checkChanges } from '../changes.js';
import { newObjectId } from '../object-ids.js';
import type { StoredDoc } from '../records.js';
import { StoreError, UniqueConstraintError } from '../store.js';
import type { Changes, Collection, CollectionSpec, Filter, FindOptions, NewDoc } from '../store.js';
import { decode, encode, encodeDocument } from './documents.js';
import { constraintOf, sqlState, wrapError } from './errors.js';
import { Params, toSqlCondition } from './filter.js';
import { toSqlTail } from './find-options.js';
import type { IndexedFields } from './index-lookups.js';
import { collectionTable, uniqueIndexName } from './migrations.js';

const UNIQUE_VIOLATION = '23505';

/** What a collection needs from the store that owns it. */
export interface PostgresCollectionContext {
  /** The open pool; throws StoreError when the store is not open. */
  pool(collection: string): Pool;
}

/** Implements `Collection` on one PostgreSQL table: validates every input, maps every error. */
export class PostgresCollection<T extends StoredDoc> implements Collection<T> {
  readonly name: string;
  private readonly table: string;
  /** Each unique index's name, and the field it keeps unique. */
  private readonly uniqueFields: ReadonlyMap<string, string>;
  /** The fields with an expression index, which filters reach through index-served pre-filters. */
  private readonly indexed: IndexedFields;

  constructor(
    spec: CollectionSpec,
    private readonly context: PostgresCollectionContext,
  ) {
    this.name = spec.name;
    this.table = collectionTable(spec.name);
    this.uniqueFields = new Map([[`${this.table}_pkey`, '_id'], ...spec.unique.map((f) => [uniqueIndexName(this.table, f), f] as const)]);
    this.indexed = new Set([...spec.unique, ...spec.indexed]);
  }

  async insert(doc: NewDoc<T>): Promise<T> {
    const stored = encodeDocument(this.name, doc);
    stored._id ??= newObjectId();
    if (typeof stored._id !== 'string' || stored._id === '') throw new StoreError(`${this.name}: _id must be a non-empty string`);
    const rows = await this.run('insert', `INSERT INTO ${this.table} (id, doc) VALUES ($1, $2) RETURNING doc`, [stored._id, stored]);
    return this.docOf(rows[0]);
  }

  async findById(id: string): Promise<T | null> {
    const rows = await this.run('find', `SELECT doc FROM ${this.table} WHERE id = $1`, [this.checkId(id)]);
    return rows.length === 0 ? null : this.docOf(rows[0]);
  }

  async findOne(filter: Filter): Promise<T | null> {
    const [first] = await this.find(filter, { limit: 1 });
    return first ?? null;
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    const { text, values } = this.findStatement(filter, options);
    const rows = await this.run('find', text, values);
    return rows.map((row) => this.docOf(row));
  }

  /** The statement `find` runs, for tests that check its plan; throws StoreError for a bad filter or options. */
  findStatement(filter: Filter, options?: FindOptions): { text: string; values: unknown[] } {
    const params = new Params();
    const where = toSqlCondition(this.name, filter, params, this.indexed);
    const tail = toSqlTail(this.name, options, params);
    return { text: `SELECT doc FROM ${this.table} WHERE ${where} ${tail}`, values: params.values };
  }

  async count(filter: Filter): Promise<number> {
    const params = new Params();
    const where = toSqlCondition(this.name, filter, params, this.indexed);
    const rows = await this.run('count', `SELECT count(*)::int AS n FROM ${this.table} WHERE ${where}`, params.values);
    return (rows[0] as { n: number }).n;
  }

  async updateById(id: string, changes: Changes<T>): Promise<T | null> {
    const params = new Params();
    const set = this.updateSet(changes, params);
    const rows = await this.run('update', `UPDATE ${this.table} SET ${set} WHERE id = ${params.add(this.checkId(id))} RETURNING doc`, params.values);
    return rows.length === 0 ? null : this.docOf(rows[0]);
  }

  async updateMany(filter: Filter, changes: Changes<T>): Promise<number> {
    const params = new Params();
    const where = toSqlCondition(this.name, filter, params, this.indexed);
    const set = this.updateSet(changes, params);
    // One statement: a unique clash on any row leaves every row as it was.
    const rows = await this.run('update', `WITH changed AS (UPDATE ${this.table} SET ${set} WHERE ${where} RETURNING 1) SELECT count(*)::int AS n FROM changed`, params.values);
    return (rows[0] as { n: number }).n;
  }

  async removeById(id: string): Promise<boolean> {
    const rows = await this.run('remove', `DELETE FROM ${this.table} WHERE id = $1 RETURNING id`, [this.checkId(id)]);
    return rows.length > 0;
  }

  async removeMany(filter: Filter): Promise<number> {
    const params = new Params();
    const where = toSqlCondition(this.name, filter, params, this.indexed);
    const rows = await this.run('remove', `WITH gone AS (DELETE FROM ${this.table} WHERE ${where} RETURNING 1) SELECT count(*)::int AS n FROM gone`, params.values);
    return (rows[0] as { n: number }).n;
  }

  /** `doc = doc - <unset> || <set>`: top-level fields replaced or removed, as `Changes` defines them. */
  private updateSet(changes: Changes<T>, params: Params): string {
    const { set, unset } = checkChanges(this.name, changes);
    return `doc = (doc - ${params.add(unset)}::text[]) || ${params.add(encode(set))}::jsonb`;
  }

  private checkId(id: unknown): string {
    if (typeof id !== 'string') throw new StoreError(`${this.name}: an id must be a string`);
    return id;
  }

  private docOf(row: unknown): T {
    return decode((row as { doc: unknown }).doc) as T;
  }

  private async run(action: string, sql: string, values: unknown[]): Promise<unknown[]> {
    const pool = this.context.pool(this.name);
    try {
      return (await pool.query<Record<string, unknown>>(sql, values)).rows;
    } catch (err) {
      if (sqlState(err) === UNIQUE_VIOLATION) {
        const field = this.uniqueFields.get(constraintOf(err) ?? '');
        if (field !== undefined) throw new UniqueConstraintError(this.name, field, { cause: err });
      }
      throw wrapError(this.name, action, err);
    }
  }
}
