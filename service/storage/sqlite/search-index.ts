/**
 * The search index (issue 37) in the transaction log's own file, transactions.sqlite, so removing transactions
 * removes their entries in the same commit and a backup copies both as of one moment.
 *
 * - `search_docs`: one row per indexed transaction: its `docid`, id, request time, channel and its searchable keys as
 *   extracted (for showing why a row matched; the others, shown nowhere, were most of the row before session 17). The docid is the request's epoch second times 2^20 plus a counter within that
 *   second, so docid order is request-time order to the second: the full-text index, whose matches come out in docid
 *   order, can then be read newest first a window at a time instead of sorting every match of a common word.
 * - `search_terms`: the four searchable keys, normalised, each written as one term (`keyTerms`) of an FTS5
 *   contentless table keyed by docid, so the transactions of one patient ID are read newest first (by request second)
 *   from the term's doclist, as the words are. A B-tree keyed by value took a random leaf page per key written, 7 a
 *   transaction, each copied to the WAL at every commit and back at every checkpoint: it was most of the indexing's
 *   cost at ingest and grows with the index. FTS5 buffers a commit's terms and writes them as one sorted segment,
 *   merged later in bulk (an LSM), at a third of the size (session 17, docs/BENCHMARKS.md).
 * - `search_text`: an FTS5 contentless table (`content=''`, `contentless_delete=1`): an index of the body words keyed
 *   by docid, never a copy of the bodies; `detail=none` as a search is all of its words, never a phrase.
 * - `search_state`: the indexer's cursor and backfill progress, written in the same commit as the entries, and the
 *   running counts of docs and keys (counting 40 million key rows would take seconds).
 *
 * Tables are created with IF NOT EXISTS at open, so a data folder from before the index upgrades in place; the
 * indexer's backfill then indexes the transactions stored before. An index of the first layout (`search_keys`) is
 * dropped at open and rebuilt the same way (`SearchTables.upgraded` says so, for the log's line).
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { normaliseKeyValue, SEARCHABLE_KEY_NAMES } from '../../domain/clinical/clinical-key.js';
import type { ClinicalKey, ClinicalKeyName, KeyCondition, SearchableKeyName } from '../../domain/clinical/clinical-key.js';
import { StoreError } from '../store.js';
import type { IndexedTransaction, SearchIndex, SearchIndexState } from '../search-index.js';
import { isDay } from '../transaction-ids.js';
import type { SqlCondition, SqlValue } from './where.js';

export const SEARCH_SCHEMA = `
CREATE TABLE IF NOT EXISTS search_docs (
  docid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  ts INTEGER NOT NULL,
  channel TEXT NOT NULL,
  keys TEXT NOT NULL,
  has_text INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS search_docs_text ON search_docs (channel, ts) WHERE has_text = 1;
CREATE VIRTUAL TABLE IF NOT EXISTS search_terms USING fts5(terms, content='', contentless_delete=1, detail=none, tokenize='ascii');
CREATE VIRTUAL TABLE IF NOT EXISTS search_text USING fts5(body, content='', contentless_delete=1, detail=none, tokenize='unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS search_state (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  finished_seq INTEGER NOT NULL DEFAULT 0,
  backfill_before TEXT,
  backfill_done INTEGER NOT NULL DEFAULT 0,
  backfill_total INTEGER NOT NULL DEFAULT 0,
  backfill_covered INTEGER NOT NULL DEFAULT 0,
  docs INTEGER NOT NULL DEFAULT 0,
  keys INTEGER NOT NULL DEFAULT 0
);
INSERT OR IGNORE INTO search_state (one) VALUES (1);
`;

/** The searchable keys as numbered in their terms. */
const KIND: Record<SearchableKeyName, number> = { patientId: 1, orderNumber: 2, controlId: 3, messageType: 4 };
const ANY_KINDS = [KIND.patientId, KIND.orderNumber, KIND.controlId];
/** docids per second of request time: far more transactions than one instance takes in a second. */
const PER_SECOND = 2 ** 20;

/** The first docid of the second `ts` (epoch ms) falls in. */
export function docidBase(ts: number): number {
  return Math.floor(Math.max(0, ts) / 1000) * PER_SECOND;
}

/** The request second a docid belongs to (docid order is request-second order). */
export function docidSecond(docid: number): number {
  return Math.floor(docid / PER_SECOND);
}

interface DocRow {
  docid: number;
  ts: number;
  keys: string;
  has_text: number;
}

interface StateRow {
  finished_seq: number;
  backfill_before: string | null;
  backfill_done: number;
  backfill_total: number;
  backfill_covered: number;
  docs: number;
  keys: number;
}

interface SearchStatements {
  docById: Statement<[string], DocRow>;
  docsByIds: Statement<[string], DocRow & { id: string }>;
  lastDocid: Statement<[number, number], { m: number | null }>;
  transactionsByIds: Statement<[string], { id: string }>;
  insertDoc: Statement<[number, string, number, string, string, number]>;
  deleteDoc: Statement<[number]>;
  insertTerms: Statement<[number, string]>;
  deleteTerms: Statement<[number]>;
  insertText: Statement<[number, string]>;
  deleteText: Statement<[number]>;
  addCounts: Statement<[number, number]>;
  state: Statement<[], StateRow>;
  textBefore: Statement<[string, number, number], { docid: number }>;
  dropText: Statement<[number]>;
  docsBefore: Statement<[number, number], DocRow>;
}

/**
 * Every key name as a number in `search_docs.keys` (stored per transaction, so a name spelled out would be most of the
 * row); a name a later version adds and this one does not know is kept spelled out.
 */
const NAME_CODES: Record<ClinicalKeyName, number> = {
  patientId: 1,
  orderNumber: 2,
  controlId: 3,
  messageType: 4,
  account: 5,
  visit: 6,
  application: 7,
  facility: 8,
  orderedTest: 9,
  resource: 10,
  identifier: 11,
};
const NAMES_BY_CODE = new Map(Object.entries(NAME_CODES).map(([name, code]) => [code, name as ClinicalKeyName]));

/** A key as stored: [name code, value, authority or '', field, 0 request | 1 response]. */
type StoredKey = [number | string, string, string, string, 0 | 1];

/** Only the searchable keys are kept with the doc: they are all `keysOf` answers (the ones a search can have matched). */
function encodeKeys(keys: readonly ClinicalKey[]): string {
  return JSON.stringify(keys.filter((key) => (SEARCHABLE_KEY_NAMES as readonly string[]).includes(key.name)).map((key): StoredKey => [(NAME_CODES as Record<string, number | undefined>)[key.name] ?? key.name, key.value, key.authority ?? '', key.field, key.part === 'response' ? 1 : 0]));
}

function decodeKeys(text: string): ClinicalKey[] {
  return (JSON.parse(text) as StoredKey[]).map(([code, value, authority, field, part]) => ({
    name: typeof code === 'number' ? (NAMES_BY_CODE.get(code) ?? 'identifier') : (code as ClinicalKeyName),
    value,
    ...(authority === '' ? {} : { authority }),
    field,
    part: part === 1 ? 'response' : 'request',
  }));
}

/** The keys of a transaction that go into `search_terms`, normalised, each once. */
function searchRows(keys: readonly ClinicalKey[]): { kind: number; value: string; authority: string }[] {
  const seen = new Set<string>();
  const rows: { kind: number; value: string; authority: string }[] = [];
  for (const key of keys) {
    const kind = (KIND as Record<string, number | undefined>)[key.name];
    if (kind === undefined) continue;
    const value = normaliseKeyValue(key.value);
    if (value === '') continue;
    const authority = key.authority === undefined ? '' : normaliseKeyValue(key.authority);
    const mark = `${kind}\u0000${value}\u0000${authority}`;
    if (seen.has(mark)) continue;
    seen.add(mark);
    rows.push({ kind, value, authority });
  }
  return rows;
}

/**
 * A value or authority as the letters of a term: [0-9a-y] as they are, any other byte of its UTF-8 as `z` and two hex
 * digits. The `ascii` tokenizer then reads a whole key as one term, whatever it holds (spaces, `^`, `-`, accents), and
 * no two values share a term; `zz` never occurs inside an escaped value, so it separates a value from its authority.
 */
export function termLetters(text: string): string {
  if (/^[0-9a-y]*$/.test(text)) return text;
  let out = '';
  for (const ch of text) {
    if (/[0-9a-y]/.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `z${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** The term of a key by kind and value (`k`), and with its authority (`a`): a condition with an authority reads the latter. */
function keyTerm(kind: number, value: string, authority?: string): string {
  return authority === undefined ? `k${kind}${termLetters(value)}` : `a${kind}${termLetters(value)}zz${termLetters(authority)}`;
}

/** The terms one normalised key is found by. */
function keyTerms(row: { kind: number; value: string; authority: string }): string[] {
  return row.authority === '' ? [keyTerm(row.kind, row.value)] : [keyTerm(row.kind, row.value), keyTerm(row.kind, row.value, row.authority)];
}

/** The FTS5 query of one key condition: its term, or (`any`) its terms under each name. */
function keyQuery(condition: KeyCondition): string {
  return kindsOf(condition)
    .map((kind) => `"${keyTerm(kind, condition.value, condition.authority)}"`)
    .join(' OR ');
}

/** The first layout (before session 17) kept the keys in a B-tree table, `search_keys`. */
const FIRST_LAYOUT = "SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = 'search_keys'";
const DROP_FIRST_LAYOUT = `
DROP TABLE IF EXISTS search_keys;
DROP TABLE IF EXISTS search_text;
DROP TABLE IF EXISTS search_docs;
DROP TABLE IF EXISTS search_state;
`;

/**
 * The search tables' statements and row-level edits, used by the SQLite transaction log inside its own writes (so
 * `remove` and retention take the entries with the rows) and by `SqliteSearchIndex`.
 */
export class SearchTables {
  readonly #s: SearchStatements;
  /** True when an index of the first layout was dropped at this open: the indexer rebuilds it by walking back. */
  readonly upgraded: boolean;

  constructor(private readonly db: SqliteDatabase) {
    // The index is rebuilt from the stored bodies, not converted: its state goes too, so the indexer starts afresh.
    this.upgraded = db.prepare(FIRST_LAYOUT).get() !== undefined;
    if (this.upgraded) db.transaction(() => db.exec(DROP_FIRST_LAYOUT))();
    db.exec(SEARCH_SCHEMA);
    this.#s = {
      docById: db.prepare<[string], DocRow>('SELECT docid, ts, keys, has_text FROM search_docs WHERE id = ?'),
      docsByIds: db.prepare<[string], DocRow & { id: string }>('SELECT docid, id, ts, keys, has_text FROM search_docs WHERE id IN (SELECT value FROM json_each(?))'),
      lastDocid: db.prepare<[number, number], { m: number | null }>('SELECT MAX(docid) AS m FROM search_docs WHERE docid >= ? AND docid < ?'),
      transactionsByIds: db.prepare<[string], { id: string }>('SELECT id FROM transactions WHERE id IN (SELECT value FROM json_each(?))'),
      insertDoc: db.prepare('INSERT INTO search_docs (docid, id, ts, channel, keys, has_text) VALUES (?, ?, ?, ?, ?, ?)'),
      deleteDoc: db.prepare('DELETE FROM search_docs WHERE docid = ?'),
      insertTerms: db.prepare('INSERT INTO search_terms (rowid, terms) VALUES (?, ?)'),
      deleteTerms: db.prepare('DELETE FROM search_terms WHERE rowid = ?'),
      insertText: db.prepare('INSERT INTO search_text (rowid, body) VALUES (?, ?)'),
      deleteText: db.prepare('DELETE FROM search_text WHERE rowid = ?'),
      addCounts: db.prepare('UPDATE search_state SET docs = docs + ?, keys = keys + ? WHERE one = 1'),
      state: db.prepare<[], StateRow>('SELECT * FROM search_state WHERE one = 1'),
      textBefore: db.prepare<[string, number, number], { docid: number }>('SELECT docid FROM search_docs WHERE channel = ? AND ts < ? AND has_text = 1 LIMIT ?'),
      dropText: db.prepare('UPDATE search_docs SET has_text = 0 WHERE docid = ?'),
      docsBefore: db.prepare<[number, number], DocRow>('SELECT docid, ts, keys, has_text FROM search_docs WHERE docid < ? ORDER BY docid LIMIT ?'),
    };
  }

  /** Removes a transaction's entries (inside the caller's write); whether it had any. */
  removeById(id: string): boolean {
    const doc = this.#s.docById.get(id);
    if (doc === undefined) return false;
    this.#s.addCounts.run(-1, -this.#removeDoc(doc));
    return true;
  }

  /**
   * Removes up to `limit` docs of requests before `beforeMs` (a whole second: retention passes a day's start), inside
   * the caller's write; how many.
   */
  removeBefore(beforeMs: number, limit: number): number {
    const rows = this.#s.docsBefore.all(docidBase(beforeMs), limit);
    let keys = 0;
    for (const row of rows) keys += this.#removeDoc(row);
    if (rows.length > 0) this.#s.addCounts.run(-rows.length, -keys);
    return rows.length;
  }

  /** Removes one doc's rows; the count of its keys in `search_terms` (the caller adjusts the running counts). */
  #removeDoc(doc: DocRow): number {
    const s = this.#s;
    const keys = searchRows(decodeKeys(doc.keys)).length;
    if (keys > 0) s.deleteTerms.run(doc.docid);
    if (doc.has_text === 1) s.deleteText.run(doc.docid);
    s.deleteDoc.run(doc.docid);
    return keys;
  }

  /**
   * Stores the entries and the state; the caller runs it in one transaction. What the entries need read (their docs of
   * an earlier write, whether their transactions still exist, the last docid of each second) is read once for the
   * batch, and the running counts written once: per entry these lookups cost as much as the entry's own rows.
   */
  write(entries: readonly IndexedTransaction[], state: Partial<SearchIndexState> | undefined): void {
    const s = this.#s;
    if (entries.length > 0) {
      const ids = JSON.stringify(entries.map((entry) => entry.id));
      const docs = new Map<string, DocRow>();
      for (const row of s.docsByIds.all(ids)) docs.set(row.id, row);
      const stored = new Set<string>();
      for (const row of s.transactionsByIds.all(ids)) stored.add(row.id);
      const lastOfSecond = new Map<number, number | null>();
      let docCount = 0;
      let keyCount = 0;
      for (const entry of entries) {
        const ts = entry.requestTimestamp.getTime();
        if (!Number.isFinite(ts)) throw new StoreError(`search index: transaction ${entry.id} has no valid request time`);
        const previous = docs.get(entry.id);
        if (previous !== undefined) {
          keyCount -= this.#removeDoc(previous);
          docCount--;
          docs.delete(entry.id);
        }
        // A transaction removed between the indexer's read and this write gets no entries (they would never go).
        if (!stored.has(entry.id)) continue;
        if (entry.keys.length === 0 && entry.text === '') continue;
        const rows = searchRows(entry.keys);
        const docid = previous !== undefined && docidBase(previous.ts) === docidBase(ts) ? previous.docid : this.#newDocid(ts, lastOfSecond);
        const hasText = entry.text === '' ? 0 : 1;
        const keys = encodeKeys(entry.keys);
        s.insertDoc.run(docid, entry.id, ts, entry.channelID, keys, hasText);
        if (rows.length > 0) s.insertTerms.run(docid, rows.flatMap(keyTerms).join(' '));
        if (hasText === 1) s.insertText.run(docid, entry.text);
        // The same transaction twice in one batch: the later entry replaces this one, as a later write would.
        docs.set(entry.id, { docid, ts, keys, has_text: hasText });
        docCount++;
        keyCount += rows.length;
      }
      if (docCount !== 0 || keyCount !== 0) s.addCounts.run(docCount, keyCount);
    }
    if (state !== undefined) this.#writeState(state);
  }

  /** The next docid of `ts`'s second; `lastOfSecond` keeps what this batch read and gave, so each second is read once. */
  #newDocid(ts: number, lastOfSecond: Map<number, number | null>): number {
    const base = docidBase(ts);
    let last = lastOfSecond.get(base);
    if (last === undefined) last = this.#s.lastDocid.get(base, base + PER_SECOND)?.m ?? null;
    const docid = last === null ? base : last + 1;
    if (docid >= base + PER_SECOND) throw new StoreError(`search index: more than ${PER_SECOND} transactions in one second`);
    lastOfSecond.set(base, docid);
    return docid;
  }

  #writeState(state: Partial<SearchIndexState>): void {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    const set = (column: string, value: string | number | null): void => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (state.finishedSeq !== undefined) set('finished_seq', wholeNumber(state.finishedSeq, 'finishedSeq'));
    if (state.backfillBefore !== undefined) set('backfill_before', state.backfillBefore);
    if (state.backfillDone !== undefined) set('backfill_done', state.backfillDone ? 1 : 0);
    if (state.backfillTotal !== undefined) set('backfill_total', wholeNumber(state.backfillTotal, 'backfillTotal'));
    if (state.backfillCovered !== undefined) set('backfill_covered', wholeNumber(state.backfillCovered, 'backfillCovered'));
    if (sets.length > 0) this.db.prepare(`UPDATE search_state SET ${sets.join(', ')} WHERE one = 1`).run(...values);
  }

  state(): SearchIndexState {
    const row = this.#s.state.get();
    if (row === undefined) throw new StoreError('search index: the state row is missing');
    return {
      finishedSeq: row.finished_seq,
      backfillBefore: row.backfill_before,
      backfillDone: row.backfill_done === 1,
      backfillTotal: row.backfill_total,
      backfillCovered: row.backfill_covered,
    };
  }

  stats(): { transactions: number; keys: number; bytes: number | null } {
    const row = this.#s.state.get();
    return { transactions: row?.docs ?? 0, keys: row?.keys ?? 0, bytes: null };
  }

  keysOf(ids: readonly string[]): Map<string, ClinicalKey[]> {
    const found = new Map<string, ClinicalKey[]>();
    for (const id of new Set(ids)) {
      const doc = this.#s.docById.get(id);
      if (doc === undefined) continue;
      const keys = decodeKeys(doc.keys);
      if (keys.length > 0) found.set(id, keys);
    }
    return found;
  }

  /** Drops the words of up to `limit` of a channel's docs before `beforeMs`; how many. */
  removeChannelTextBefore(channelID: string, beforeMs: number, limit: number): number {
    const rows = this.#s.textBefore.all(channelID, beforeMs, limit);
    for (const row of rows) {
      this.#s.deleteText.run(row.docid);
      this.#s.dropText.run(row.docid);
    }
    return rows.length;
  }
}

function wholeNumber(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new StoreError(`search index: ${name} must be a whole number of 0 or more`);
  return value;
}

/** How the search index reaches the log's connection: its group commit for writes, a plain run for reads. */
export interface SearchAccess {
  write<T>(action: string, work: (tables: SearchTables, db: SqliteDatabase) => T): Promise<T>;
  run<T>(action: string, work: (tables: SearchTables, db: SqliteDatabase) => T): Promise<T>;
}

/**
 * Most entries, and most bytes of text, written in one commit. FTS5 writes each commit's terms as a new segment and
 * merges segments as they pile up, and the commit copies every page it touched to the write-ahead log: per entry, both
 * cost less the more entries share a commit (session 18: 50 a commit cost ~45 µs an HL7 entry and wrote 7 MB of WAL a
 * 2,000 entries; 500, ~33 µs and 2.4 MB). The bound keeps one commit within some tens of milliseconds of the proxy's
 * event loop: FTS5's merges happen in the commit, some taking 100 ms and more on a loaded machine.
 */
const CHUNK_ENTRIES = 500;
const CHUNK_TEXT = 4 * 1024 * 1024;

/** The entries in commit-sized chunks, at least one (possibly empty, to carry the state). */
function chunked(entries: readonly IndexedTransaction[]): IndexedTransaction[][] {
  const chunks: IndexedTransaction[][] = [[]];
  let text = 0;
  for (const entry of entries) {
    let current = chunks[chunks.length - 1] as IndexedTransaction[];
    if (current.length > 0 && (current.length >= CHUNK_ENTRIES || text + entry.text.length > CHUNK_TEXT)) {
      current = [];
      chunks.push(current);
      text = 0;
    }
    current.push(entry);
    text += entry.text.length;
  }
  return chunks;
}

/** Rows of a channel's text dropped per commit by `removeChannelTextBefore`. */
const TEXT_BATCH = 500;

/** `SearchIndex` over the log's connection. */
export class SqliteSearchIndex implements SearchIndex {
  constructor(private readonly access: SearchAccess) {}

  /**
   * Each chunk is a savepoint in the log's group commit (a failing chunk leaves nothing of itself; the log's writes of
   * the same turn still commit), and chunks are small, so indexing a batch of large bodies never holds the proxy's
   * commits for long. The state goes with the last chunk: after a crash between chunks the cursor has not moved, and
   * the indexer writes the whole batch again, which replaces what the earlier chunks wrote.
   */
  async write(entries: readonly IndexedTransaction[], state?: Partial<SearchIndexState>): Promise<void> {
    const chunks = chunked(entries);
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i] as IndexedTransaction[];
      const last = i === chunks.length - 1;
      await this.access.write('write', (tables, db) => db.transaction(() => tables.write(chunk, last ? state : undefined))());
    }
  }

  keysOf(ids: readonly string[]): Promise<Map<string, ClinicalKey[]>> {
    return this.access.run('keysOf', (tables) => tables.keysOf(ids));
  }

  state(): Promise<SearchIndexState> {
    return this.access.run('state', (tables) => tables.state());
  }

  async removeChannelTextBefore(channelID: string, day: string): Promise<number> {
    if (!isDay(day)) throw new StoreError(`search index: "${String(day)}" is not a day (yyyy-mm-dd)`);
    const before = Date.parse(`${day}T00:00:00Z`);
    let total = 0;
    for (;;) {
      const removed = await this.access.write('removeChannelTextBefore', (tables, db) => db.transaction(() => tables.removeChannelTextBefore(channelID, before, TEXT_BATCH))());
      total += removed;
      if (removed < TEXT_BATCH) return total;
    }
  }

  stats(): Promise<{ transactions: number; keys: number; bytes: number | null }> {
    return this.access.run('stats', (tables) => tables.stats());
  }
}

/* ------------------------------------------------------------------------------------------------------------------ */
/* Reading the log through the index: the driver of a filter with keys or words.                                      */

/**
 * What a filter with keys or words reads first: one key condition's terms, or the words, in `search_terms` or
 * `search_text`, both newest first by docid (so by request second). Either yields docids a window at a time; the
 * other conditions are checked on each.
 */
export type SearchDriver = { kind: 'key'; condition: KeyCondition; rest: KeyCondition[]; words?: string[] } | { kind: 'text'; words: string[]; rest: KeyCondition[] };

/** Picks the driver: the most selective key (a patient ID, order or control number before a message type), else the words. */
export function chooseDriver(keys: readonly KeyCondition[] | undefined, words: readonly string[] | undefined): SearchDriver | null {
  const all = keys ?? [];
  if (all.length > 0) {
    const index = all.findIndex((k) => k.name !== 'messageType');
    const at = index === -1 ? 0 : index;
    const condition = all[at] as KeyCondition;
    const rest = all.filter((_k, i) => i !== at);
    return { kind: 'key', condition, rest, ...(words === undefined ? {} : { words: [...words] }) };
  }
  if (words !== undefined && words.length > 0) return { kind: 'text', words: [...words], rest: [] };
  return null;
}

/** A full-text query of plain words: each an FTS5 string, so nothing of the search is read as query syntax. */
export function matchQuery(words: readonly string[]): string {
  return words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' ');
}

function kindsOf(condition: KeyCondition): number[] {
  return condition.name === 'any' ? ANY_KINDS : [KIND[condition.name]];
}

/** One condition on the keys of docid `d.docid`, for the checks after the driver. */
function keyExists(condition: KeyCondition): SqlCondition {
  return { sql: 'EXISTS (SELECT 1 FROM search_terms WHERE search_terms MATCH ? AND rowid = d.docid)', params: [keyQuery(condition)] };
}

/**
 * Where a window of the driver resumes, `offset` matches in: FTS5 reads a doclist backwards from its end, so a
 * `rowid < ?` bound costs as much as stepping over every match above it, and stepping (OFFSET) is 2-3 times cheaper
 * than the bound (measured: a word in all of 1,000,000 transactions, 130 ms to reach two thirds down by the bound,
 * 40 ms for 500,000 by offset). Matches written above meanwhile shift the offset: the scan drops those at or above
 * the last docid it read. `ts` is unused (0): both drivers go by docid.
 */
export interface DriverCursor {
  ts: number;
  docid: number;
  offset: number;
}

/**
 * One window of the driver as SQL: rows (docid, ts NULL) newest first by docid, at most `size`, after `cursor`, within
 * the time bounds to the second (the caller checks them to the millisecond on each entry). Every parameter is bound.
 */
export function driverWindow(driver: SearchDriver, bounds: { fromMs?: number; toMs?: number }, cursor: DriverCursor | null, size: number): SqlCondition {
  const table = driver.kind === 'key' ? 'search_terms' : 'search_text';
  const parts = [`${table} MATCH ?`];
  const params: SqlValue[] = [driver.kind === 'key' ? keyQuery(driver.condition) : matchQuery(driver.words)];
  if (bounds.fromMs !== undefined) {
    parts.push('rowid >= ?');
    params.push(docidBase(bounds.fromMs));
  }
  if (bounds.toMs !== undefined) {
    parts.push('rowid < ?');
    params.push(docidBase(bounds.toMs) + PER_SECOND);
  }
  return { sql: `SELECT rowid AS docid, NULL AS ts FROM ${table} WHERE ${parts.join(' AND ')} ORDER BY rowid DESC LIMIT ${size} OFFSET ${cursor?.offset ?? 0}`, params };
}

/** The checks after the driver, on `d` (docid, ts): the other key conditions and, when a key drives, the words. */
export function afterDriver(driver: SearchDriver): SqlCondition {
  const parts: SqlCondition[] = driver.rest.map(keyExists);
  if (driver.kind === 'key' && driver.words !== undefined) {
    parts.push({ sql: 'EXISTS (SELECT 1 FROM search_text WHERE search_text MATCH ? AND rowid = d.docid)', params: [matchQuery(driver.words)] });
  }
  if (parts.length === 0) return { sql: '1', params: [] };
  return { sql: parts.map((part) => `(${part.sql})`).join(' AND '), params: parts.flatMap((part) => part.params) };
}
