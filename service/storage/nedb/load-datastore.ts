/** Loading one collection's NeDB datastore from its datafile, refusing anything that would lose records. */
import Datastore from 'nedb-promises';
import type { CollectionSpec } from '../store.js';
import { StoreOpenError } from '../store.js';
import { checkDatafile, damaged } from './datafile-check.js';
import { describeError, isSystemError, isUniqueViolation } from './errors.js';

/** The nedb-promises datastore plus the parts of @seald-io/nedb it passes through but does not declare. */
export type NedbDatastore = Datastore<{ _id: string }> & {
  compactDatafileAsync(): Promise<void>;
  readonly indexes: Readonly<Record<string, { readonly unique: boolean; readonly sparse: boolean }>>;
};

/** Checks, loads and indexes `<file>`; rejects with StoreOpenError naming the file when it cannot be used. */
export async function loadDatastore(spec: CollectionSpec, file: string): Promise<NedbDatastore> {
  await checkDatafile(spec.name, file);
  const options = {
    filename: file,
    // Any line that does not parse fails the load (NeDB's default silently drops up to 10% of the records).
    corruptAlertThreshold: 0,
    afterSerialization: escapeLineBreaks,
    beforeDeserialization: (line: string) => line,
    // Password and session hashes live here: only the service account may read them.
    modes: { fileMode: 0o600, dirMode: 0o700 },
  };
  const datastore = Datastore.create(options) as NedbDatastore;
  try {
    await datastore.load();
  } catch (err) {
    throw loadFailure(spec.name, file, err);
  }
  await applyIndexes(spec, file, datastore);
  return datastore;
}

/**
 * NeDB's line reader also ends a line at U+2028, U+2029 and U+0085, which JSON.stringify leaves raw inside strings,
 * so a document holding one would make the file unreadable at the next start. Escaped, they read back the same.
 */
export function escapeLineBreaks(line: string): string {
  return line.replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The spec is the truth: indexes left in the file by an older layout are dropped or rebuilt to match it. */
async function applyIndexes(spec: CollectionSpec, file: string, datastore: NedbDatastore): Promise<void> {
  const wanted = new Map<string, { unique: boolean; sparse: boolean }>();
  for (const field of spec.indexed) wanted.set(field, { unique: false, sparse: false });
  // Sparse, because a unique field must be unique only among the documents that have it.
  for (const field of spec.unique) wanted.set(field, { unique: true, sparse: true });
  let field = '';
  try {
    for (const [existing, index] of Object.entries(datastore.indexes)) {
      if (existing === '_id') continue;
      const want = wanted.get(existing);
      if (want === undefined || want.unique !== index.unique || want.sparse !== index.sparse) {
        field = existing;
        await datastore.removeIndex(existing);
      }
    }
    for (const [name, want] of wanted) {
      field = name;
      await datastore.ensureIndex({ fieldName: name, ...want });
    }
  } catch (err) {
    if (isUniqueViolation(err)) throw damaged(spec.name, file, `two documents have the same ${field}, which must be unique`, err);
    throw loadFailure(spec.name, file, err);
  }
}

function loadFailure(collection: string, file: string, err: unknown): StoreOpenError {
  if (err instanceof StoreOpenError) return err;
  if (isUniqueViolation(err)) return damaged(collection, file, 'two documents have the same value in a field that must be unique', err);
  const corrupt = err as { corruptItems?: unknown; dataLength?: unknown };
  if (typeof corrupt.corruptItems === 'number') {
    return damaged(collection, file, `${corrupt.corruptItems} of its ${String(corrupt.dataLength)} lines cannot be read`, err);
  }
  const advice = isSystemError(err)
    ? `NeDB reads the file and then rewrites it through ${file}~; check that both are regular files the Junction service account may write, and that the disk has space`
    : 'restore the file from a backup, or move it aside to start with an empty collection';
  return new StoreOpenError(collection, file, `Cannot load the ${collection} data file ${file}: ${describeError(err)}. ${advice}.`, { cause: err });
}
