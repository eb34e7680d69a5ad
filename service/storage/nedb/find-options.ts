/** Validating `FindOptions` before they reach a NeDB cursor, which would accept nonsense and misbehave quietly. */
import { StoreError } from '../store.js';
import type { FindOptions } from '../store.js';
import { isPlainObject } from '../../domain/util/plain-object.js';
import { checkFieldPath } from '../filter-values.js';

export interface CursorOptions {
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
}

/** Returns validated cursor options; throws StoreError for a bad sort direction, skip or limit. */
export function toCursorOptions(collection: string, options: FindOptions | undefined): CursorOptions {
  if (options === undefined) return {};
  if (!isPlainObject(options)) throw new StoreError(`${collection}: find options must be an object`);
  const result: CursorOptions = {};
  if (options.sort !== undefined) {
    if (!isPlainObject(options.sort)) throw new StoreError(`${collection}: sort must be an object of field: 1 | -1`);
    const sort: Record<string, 1 | -1> = {};
    for (const [field, order] of Object.entries(options.sort)) {
      checkFieldPath(collection, field, 'sort');
      if (order !== 1 && order !== -1) throw new StoreError(`${collection}: sort.${field} must be 1 or -1`);
      sort[field] = order;
    }
    result.sort = sort;
  }
  if (options.skip !== undefined) result.skip = count(collection, 'skip', options.skip);
  if (options.limit !== undefined) result.limit = count(collection, 'limit', options.limit);
  return result;
}

function count(collection: string, name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new StoreError(`${collection}: ${name} must be a whole number of 0 or more`);
  }
  return value;
}
