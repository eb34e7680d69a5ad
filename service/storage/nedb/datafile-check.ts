/**
 * Checking a datafile before NeDB loads it. NeDB rewrites the whole file after every successful load, and even with
 * `corruptAlertThreshold: 0` it accepts some damage without complaint, so the rewrite would lose it for good:
 * - invalid UTF-8 bytes are decoded as U+FFFD and written back that way;
 * - lines that are valid JSON but not documents (no `_id`: `{}`, `[1]`, a record whose `_id` was cut off) are skipped.
 * It also splits lines at U+2028, U+2029, U+0085, CR, VT and FF, not only at LF. Anything of that kind stops the
 * open here, with the line number, and the file is left exactly as it was.
 */
import { readFile, stat } from 'node:fs/promises';
import { StoreOpenError } from '../store.js';
import { describeError, isSystemError } from './errors.js';

/** Rejects with StoreOpenError when the file NeDB is about to load is unreadable or damaged. */
export async function checkDatafile(collection: string, file: string): Promise<void> {
  const target = await fileNedbWillLoad(collection, file);
  if (target === null) return;
  let bytes: Buffer;
  try {
    bytes = await readFile(target);
  } catch (err) {
    throw unreadable(collection, target, err);
  }
  const damage = findDamage(bytes);
  if (damage !== null) throw damaged(collection, target, damage);
}

/** A StoreOpenError for a file that exists but cannot be read. */
export function unreadable(collection: string, file: string, err: unknown): StoreOpenError {
  return new StoreOpenError(
    collection,
    file,
    `Cannot read the ${collection} data file ${file}: ${describeError(err)}. ` +
      'Check that it is a regular file that the Junction service account may read and write, or restore it from a backup.',
    { cause: err },
  );
}

/** A StoreOpenError for a file whose content cannot be loaded without losing records. */
export function damaged(collection: string, file: string, what: string, cause?: unknown): StoreOpenError {
  return new StoreOpenError(
    collection,
    file,
    `The ${collection} data file ${file} is damaged: ${what}. Junction did not load it and left it unchanged, so no record ` +
      'has been dropped. Restore the file from a backup, or repair that line by hand, or move the file aside to start ' +
      `with an empty ${collection} collection; then start Junction again.`,
    cause === undefined ? undefined : { cause },
  );
}

/** NeDB loads `<file>`, or after an interrupted compaction renames `<file>~` to `<file>` and loads that. */
async function fileNedbWillLoad(collection: string, file: string): Promise<string | null> {
  for (const candidate of [file, `${file}~`]) {
    try {
      await stat(candidate);
      return candidate;
    } catch (err) {
      if (!isSystemError(err) || err.code !== 'ENOENT') throw unreadable(collection, candidate, err);
    }
  }
  return null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
// The separators NeDB's line reader splits at besides LF (CRLF is handled by stripping the CR first).
const otherLineBreaks = /[\r\v\f\u0085\u2028\u2029]/;

/** Describes the first damaged line ("line 7 is not valid JSON"), or returns null when every line loads. */
export function findDamage(bytes: Uint8Array): string | null {
  let start = 0;
  let lineNumber = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    lineNumber += 1;
    const problem = lineProblem(bytes.subarray(start, end));
    if (problem !== null) return `line ${lineNumber} ${problem}`;
    start = end + 1;
  }
  return null;
}

function lineProblem(raw: Uint8Array): string | null {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return 'is not valid UTF-8 text';
  }
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text === '') return null;
  if (otherLineBreaks.test(text)) return 'contains a line-break character (U+2028, U+2029, U+0085, CR, VT or FF) that NeDB reads as the end of a line';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'is not valid JSON';
  }
  return isNedbLine(parsed) ? null : 'is not a document (it has no string _id)';
}

function isNedbLine(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const line = value as Record<string, unknown>;
  if (typeof line._id === 'string' && line._id !== '') return true;
  const index = line.$$indexCreated;
  if (typeof index === 'object' && index !== null && typeof (index as Record<string, unknown>).fieldName === 'string') return true;
  return typeof line.$$indexRemoved === 'string';
}
