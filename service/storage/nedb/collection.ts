/** One configuration collection on a NeDB datastore. */
import { StoreError } from '../store.js';
import type { StoredDoc } from '../records.js';
import type { Changes, Collection, CollectionSpec, Filter, FindOptions, NewDoc } from '../store.js';
import { toNedbUpdate } from './changes.js';
import { toStorable } from '../documents.js';
import { newObjectId } from '../object-ids.js';
import { copyOut } from './copy-out.js';
import { isSystemError, isUniqueViolation, toUniqueConstraintError, wrapError } from './errors.js';
import { toCursorOptions } from './find-options.js';
import { toNedbQuery } from './filter.js';
import type { NedbQuery } from './filter.js';
import type { NedbDatastore } from './load-datastore.js';

/** What a collection needs from the store that owns it. */
export interface CollectionContext {
  /** The loaded datastore; throws StoreError when the store is not open. */
  datastore(collection: string): NedbDatastore;
  /** Records a write that NeDB applied in memory but could not append to the datafile. */
  writeFailed(collection: string, err: unknown): void;
}

/** Implements `Collection` on NeDB: validates every input, copies every output, maps every error. */
export class NedbCollection<T extends StoredDoc> implements Collection<T> {
  readonly name: string;

  constructor(
    private readonly spec: CollectionSpec,
    private readonly context: CollectionContext,
  ) {
    this.name = spec.name;
  }

  async insert(doc: NewDoc<T>): Promise<T> {
    const stored = toStorable(this.name, doc, '') as Record<string, unknown>;
    // NeDB's own ids are 16 characters; every engine hands out OpenHIM-shaped ones instead.
    stored._id ??= newObjectId();
    if (typeof stored._id !== 'string' || stored._id === '') {
      throw new StoreError(`${this.name}: _id must be a non-empty string`);
    }
    const datastore = this.context.datastore(this.name);
    try {
      return copyOut<T>(await datastore.insert(stored));
    } catch (err) {
      throw this.writeError('insert', err, stored);
    }
  }

  async findById(id: string): Promise<T | null> {
    return this.findOneBy(this.byId(id));
  }

  async findOne(filter: Filter): Promise<T | null> {
    return this.findOneBy(toNedbQuery(this.name, filter));
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    const query = toNedbQuery(this.name, filter);
    const { sort, skip, limit } = toCursorOptions(this.name, options);
    const datastore = this.context.datastore(this.name);
    // NeDB reads a limit of 0 as "no limit".
    if (limit === 0) return [];
    // The cursor is a thenable that runs when awaited, so it is reassigned rather than left as a bare statement.
    let cursor = datastore.find(query);
    if (sort !== undefined) cursor = cursor.sort(sort);
    if (skip !== undefined) cursor = cursor.skip(skip);
    if (limit !== undefined) cursor = cursor.limit(limit);
    try {
      return (await cursor).map((doc) => copyOut<T>(doc));
    } catch (err) {
      throw wrapError(this.name, 'find', err);
    }
  }

  async count(filter: Filter): Promise<number> {
    const query = toNedbQuery(this.name, filter);
    const datastore = this.context.datastore(this.name);
    try {
      return await datastore.count(query);
    } catch (err) {
      throw wrapError(this.name, 'count', err);
    }
  }

  async updateById(id: string, changes: Changes<T>): Promise<T | null> {
    const query = this.byId(id);
    const update = toNedbUpdate(this.name, changes);
    const datastore = this.context.datastore(this.name);
    try {
      const updated = await datastore.update(query, update, { multi: false, returnUpdatedDocs: true });
      // With no match NeDB hands back undefined rather than null.
      return updated === null || updated === undefined ? null : copyOut<T>(updated);
    } catch (err) {
      throw this.writeError('update', err, update.$set);
    }
  }

  async updateMany(filter: Filter, changes: Changes<T>): Promise<number> {
    const query = toNedbQuery(this.name, filter);
    const update = toNedbUpdate(this.name, changes);
    const datastore = this.context.datastore(this.name);
    try {
      return await datastore.update(query, update, { multi: true });
    } catch (err) {
      throw this.writeError('update', err, update.$set);
    }
  }

  async removeById(id: string): Promise<boolean> {
    return (await this.remove(this.byId(id), false)) > 0;
  }

  async removeMany(filter: Filter): Promise<number> {
    return this.remove(toNedbQuery(this.name, filter), true);
  }

  private async findOneBy(query: NedbQuery): Promise<T | null> {
    const datastore = this.context.datastore(this.name);
    try {
      const doc = await datastore.findOne(query);
      return doc === null ? null : copyOut<T>(doc);
    } catch (err) {
      throw wrapError(this.name, 'find', err);
    }
  }

  private async remove(query: NedbQuery, multi: boolean): Promise<number> {
    const datastore = this.context.datastore(this.name);
    try {
      return await datastore.remove(query, { multi });
    } catch (err) {
      throw this.writeError('remove', err, undefined);
    }
  }

  private byId(id: string): NedbQuery {
    if (typeof id !== 'string') throw new StoreError(`${this.name}: an id must be a string`);
    return { _id: id };
  }

  private writeError(action: string, err: unknown, written: unknown): StoreError {
    if (isUniqueViolation(err)) return toUniqueConstraintError(this.spec, err, written);
    if (isSystemError(err)) {
      this.context.writeFailed(this.name, err);
      return new StoreError(
        `${this.name}: the ${action} could not be written to disk (${err.message}); ` +
          'it stays in memory and is saved by the next successful compaction',
        { cause: err },
      );
    }
    return wrapError(this.name, action, err);
  }
}
