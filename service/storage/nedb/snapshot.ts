/**
 * A consistent copy of every NeDB collection, for backups. NeDB applies each change to its in-memory documents in one
 * synchronous step, so reading them all in one synchronous pass sees every collection as of the same moment, with no
 * lock and no pause for writers. Each copy is written in NeDB's own datafile format (one document per line, dates as
 * `{"$$date": ms}`), so the restored file loads as any datafile does; indexes are rebuilt from the specs on load.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { escapeLineBreaks } from './load-datastore.js';
import type { NedbDatastore } from './load-datastore.js';

/** One collection's documents in NeDB's datafile format, as of the moment of the call. */
export function serializeCollection(datastore: NedbDatastore): string {
  const docs = (datastore as unknown as { getAllData(): unknown[] }).getAllData();
  return docs.map((doc) => `${escapeLineBreaks(serializeDocument(doc))}\n`).join('');
}

/** NeDB's serialization: a Date (already turned to text by toJSON when the replacer sees it) becomes `{$$date}`. */
export function serializeDocument(doc: unknown): string {
  return JSON.stringify(doc, function (this: Record<string, unknown>, key: string, value: unknown) {
    const original = this[key];
    if (original instanceof Date) return { $$date: original.getTime() };
    return value;
  });
}

/** Writes `<collection>.db` for every datastore into `dir` (mode 0600: password and session hashes live here). */
export async function writeCollections(datastores: ReadonlyMap<string, NedbDatastore>, dir: string): Promise<string[]> {
  // Every collection is read before the first await, so all copies are of one moment.
  const copies = [...datastores].map(([name, datastore]) => ({ file: `${name}.db`, text: serializeCollection(datastore) }));
  for (const copy of copies) await writeFile(join(dir, copy.file), copy.text, { mode: 0o600, flag: 'wx' });
  return copies.map((copy) => copy.file);
}
