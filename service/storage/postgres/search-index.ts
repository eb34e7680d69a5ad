/**
 * The search index (storage/search-index.ts) on PostgreSQL, in the log's own database (migrations 10 and 11,
 * search-schema.ts). A batch is written in one statement: the transactions' earlier keys go, their entries and keys
 * come in, and the indexer's state moves, all or nothing in one round trip, whatever the batch's size. Entries of
 * transactions no longer in the log are not written, so a transaction removed while it was being indexed leaves
 * nothing behind (bar a removal committing in the instant between the two: its entries age out with its day).
 */
import type { Pool } from 'pg';
import { normaliseKeyValue, SEARCHABLE_KEY_NAMES } from '../../domain/clinical/clinical-key.js';
import type { ClinicalKey, SearchableKeyName } from '../../domain/clinical/clinical-key.js';
import type { IndexedTransaction, SearchIndex, SearchIndexState } from '../search-index.js';
import { StoreError } from '../store.js';
import { isDay } from '../transaction-ids.js';
import { wrapError } from './errors.js';
import { isObjectId } from '../object-ids.js';
import { authoritiesText, kindOf, nameBit, qualifiedAuthority } from './search-keys.js';
import type { KeyKind } from './search-keys.js';
import { packKeys, unpackKeys } from './search-stored-keys.js';
import { indexWords } from './search-words.js';

const COLLECTION = 'search index';
const SEARCHABLE = new Set<string>(SEARCHABLE_KEY_NAMES);
/** Rows one statement of `removeChannelTextBefore` changes, so that none holds its locks for long. */
const CLEAR_BATCH = 5000;
/** Above this many rows `stats` reads the planner's estimate: an exact count of a large index would take seconds. */
const EXACT_COUNT_UP_TO = 1_000_000;

interface StateRow {
  finished_seq: string;
  backfill_before: string | null;
  backfill_done: boolean;
  backfill_total: string;
  backfill_covered: string;
}

/** The state's fields and their columns, for an update of only those given. */
const STATE_COLUMNS: readonly [keyof SearchIndexState, string, string][] = [
  ['finishedSeq', 'finished_seq', 'bigint'],
  ['backfillBefore', 'backfill_before', 'text'],
  ['backfillDone', 'backfill_done', 'boolean'],
  ['backfillTotal', 'backfill_total', 'bigint'],
  ['backfillCovered', 'backfill_covered', 'bigint'],
];

/**
 * One batch: the docs upserted for transactions still in the log, their searchable keys inserted after the old ones
 * are gone (the insert reads the delete's count, so it runs once the delete is done, and a key row deleted by this
 * statement no longer clashes with its replacement), the docs of entries that now hold nothing removed. Ids come as
 * hex and are kept as their bytes, channels as their numbers (`search_channels`), keys packed (search-stored-keys.ts).
 */
const WRITE_SQL = `
WITH input AS (
  SELECT decode(u.id, 'hex') AS tx, u.id, u.ts, u.channel, decode(u.keys, 'base64') AS keys, u.words
    FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::text[], $5::text[]) AS u (id, ts, channel, keys, words)
),
old_keys AS (DELETE FROM search_keys WHERE tx IN (SELECT tx FROM input) RETURNING 1),
emptied AS (
  DELETE FROM search_docs WHERE tx IN (SELECT tx FROM input WHERE keys IS NULL AND words IS NULL)
),
docs AS (
  INSERT INTO search_docs (tx, ts, channel, keys, words)
  SELECT i.tx, i.ts, i.channel, i.keys, i.words
    FROM input i
   WHERE NOT (i.keys IS NULL AND i.words IS NULL) AND EXISTS (SELECT 1 FROM transactions t WHERE t.id = i.id)
  ON CONFLICT (tx) DO UPDATE SET ts = excluded.ts, channel = excluded.channel, keys = excluded.keys, words = excluded.words
  RETURNING tx, ts, channel
),
new_keys AS (
  INSERT INTO search_keys (ts, channel, names, kind, tx, value, authorities)
  SELECT d.ts, d.channel, k.names, k.kind, d.tx, k.value, k.authorities
    FROM unnest($6::text[], $7::"char"[], $8::text[], $9::smallint[], $10::text[]) AS k (id, kind, value, names, authorities)
    JOIN docs d ON d.tx = decode(k.id, 'hex')
   WHERE (SELECT count(*) FROM old_keys) >= 0
)`;

/**
 * The PostgreSQL search index, kept by the transaction log (`PostgresTransactionLog.searchIndex`): it runs on the
 * log's pool, so it is open while the log is, as the embedded engine's index is open with its log's file.
 */
export class PostgresSearchIndex implements SearchIndex {
  readonly #pool: () => Pool;
  /** The numbers of the channels met so far (`search_channels`): a channel's number never changes. */
  readonly #channels = new Map<string, number>();

  /** `pool` gives the log's open pool, or throws a StoreError while the log is not open. */
  constructor(pool: () => Pool) {
    this.#pool = pool;
  }

  async write(entries: readonly IndexedTransaction[], state?: Partial<SearchIndexState>): Promise<void> {
    for (const entry of entries) checkedEntry(entry);
    await this.#numberChannels(entries.map((e) => e.channelID));
    const statement = buildWrite(entries, state, this.#channels);
    if (statement !== null) await this.#query('write', statement.text, statement.values);
  }

  /**
   * Gives each channel its number, once: a statement of its own before the batch's, so that a number another
   * instance committed meanwhile is read, not missed (a statement sees only what committed before it began).
   */
  async #numberChannels(channels: readonly string[]): Promise<void> {
    const unknown = [...new Set(channels)].filter((c) => !this.#channels.has(c));
    if (unknown.length === 0) return;
    await this.#query('write', 'INSERT INTO search_channels (channel) SELECT unnest($1::text[]) ON CONFLICT (channel) DO NOTHING', [unknown]);
    const rows = await this.#query<{ id: number; channel: string }>('write', 'SELECT id, channel FROM search_channels WHERE channel = ANY($1::text[])', [unknown]);
    for (const row of rows) this.#channels.set(row.channel, row.id);
  }

  async keysOf(ids: readonly string[]): Promise<Map<string, ClinicalKey[]>> {
    const result = new Map<string, ClinicalKey[]>();
    if (ids.length === 0) return result;
    if (!ids.every((id) => typeof id === 'string')) throw new StoreError(`${COLLECTION}: keysOf needs transaction ids`);
    // An id that is not a transaction's (24 hex) was never indexed.
    const wanted = ids.filter((id) => isObjectId(id));
    if (wanted.length === 0) return result;
    const rows = await this.#query<{ id: string; keys: Buffer }>(
      'keysOf',
      "SELECT encode(tx, 'hex') AS id, keys FROM search_docs WHERE tx IN (SELECT decode(unnest($1::text[]), 'hex')) AND keys IS NOT NULL",
      [wanted],
    );
    for (const row of rows) {
      try {
        result.set(row.id, unpackKeys(row.keys));
      } catch (err) {
        throw new StoreError(`${COLLECTION}: the stored keys of ${row.id} cannot be read (${err instanceof Error ? err.message : String(err)})`);
      }
    }
    return result;
  }

  async state(): Promise<SearchIndexState> {
    const rows = await this.#query<StateRow>('state', 'SELECT * FROM search_state', []);
    const row = rows[0];
    if (row === undefined) return { finishedSeq: 0, backfillBefore: null, backfillDone: false, backfillTotal: 0, backfillCovered: 0 };
    return {
      finishedSeq: Number(row.finished_seq),
      backfillBefore: row.backfill_before,
      backfillDone: row.backfill_done,
      backfillTotal: Number(row.backfill_total),
      backfillCovered: Number(row.backfill_covered),
    };
  }

  async removeChannelTextBefore(channelID: string, day: string): Promise<number> {
    if (typeof channelID !== 'string' || channelID === '') throw new StoreError(`${COLLECTION}: a channel id must be a non-empty string`);
    if (!isDay(day)) throw new StoreError(`${COLLECTION}: "${String(day)}" is not a day (yyyy-mm-dd)`);
    const before = Date.parse(`${day}T00:00:00Z`);
    let cleared = 0;
    for (;;) {
      // Found through the partial index of rows that still have words, so a day already cleared costs nothing.
      const rows = await this.#query(
        'removeChannelTextBefore',
        `UPDATE search_docs SET words = NULL WHERE tx IN (
           SELECT tx FROM search_docs WHERE channel = (SELECT id FROM search_channels WHERE channel = $1) AND ts < $2 AND words IS NOT NULL
            LIMIT ${CLEAR_BATCH}) RETURNING 1`,
        [channelID, before],
      );
      cleared += rows.length;
      if (rows.length < CLEAR_BATCH) return cleared;
    }
  }

  async stats(): Promise<{ transactions: number; keys: number; bytes: number | null }> {
    const rows = await this.#query<{ docs: number; keys: number; bytes: string }>(
      'stats',
      `SELECT (SELECT reltuples FROM pg_class WHERE oid = 'search_docs'::regclass) AS docs,
              (SELECT reltuples FROM pg_class WHERE oid = 'search_keys'::regclass) AS keys,
              pg_total_relation_size('search_docs') + pg_total_relation_size('search_keys') AS bytes`,
      [],
    );
    const estimate = rows[0];
    const count = async (table: 'search_docs' | 'search_keys', estimated: number | undefined): Promise<number> => {
      if (estimated !== undefined && estimated > EXACT_COUNT_UP_TO) return Math.round(estimated);
      const counted = await this.#query<{ n: string }>('stats', `SELECT count(*) AS n FROM ${table}`, []);
      return Number(counted[0]?.n ?? 0);
    };
    return {
      transactions: await count('search_docs', estimate?.docs),
      keys: await count('search_keys', estimate?.keys),
      bytes: estimate === undefined ? null : Number(estimate.bytes),
    };
  }

  async #query<R>(action: string, text: string, values: unknown[]): Promise<R[]> {
    try {
      return (await this.#pool().query(text, values)).rows as R[];
    } catch (err) {
      throw wrapError(COLLECTION, action, err);
    }
  }
}

interface Statement {
  text: string;
  values: unknown[];
}

/**
 * The one statement of a `write`: the entries' part (WRITE_SQL) when there are entries, and the state's update as
 * one more part of it when a state is given, so both commit together; null when there is nothing to write.
 */
function buildWrite(entries: readonly IndexedTransaction[], state: Partial<SearchIndexState> | undefined, channelNumbers: ReadonlyMap<string, number>): Statement | null {
  const latest = new Map<string, IndexedTransaction>();
  // A transaction named twice in one batch keeps its last entry, as two writes in a row would. An id that is not a
  // transaction's (24 hex) cannot be in the log, so it is not written, as a transaction no longer stored is not.
  for (const entry of entries) if (isObjectId(entry.id)) latest.set(entry.id, entry);
  const values: unknown[] = [];
  let text = '';
  if (latest.size > 0) {
    const ids: string[] = [];
    const times: number[] = [];
    const channels: number[] = [];
    const keys: (string | null)[] = [];
    const words: (string | null)[] = [];
    const keyTx: string[] = [];
    const keyKind: string[] = [];
    const keyValue: string[] = [];
    const keyNames: number[] = [];
    const keyAuthorities: (string | null)[] = [];
    for (const entry of latest.values()) {
      ids.push(entry.id);
      times.push(entry.requestTimestamp.getTime());
      channels.push(channelNumbers.get(entry.channelID) ?? 0);
      // Only the searchable keys are kept: they are all a match shows (keysOf).
      keys.push(packKeys(entry.keys.filter((key) => SEARCHABLE.has(key.name)))?.toString('base64') ?? null);
      const text = indexWords(entry.text).join(' ');
      words.push(text === '' ? null : text);
      for (const row of searchableKeys(entry.keys)) {
        keyTx.push(entry.id);
        keyKind.push(row.kind);
        keyValue.push(row.value);
        keyNames.push(row.names);
        keyAuthorities.push(authoritiesText(row.authorities));
      }
    }
    values.push(ids, times, channels, keys, words, keyTx, keyKind, keyValue, keyNames, keyAuthorities);
    text = WRITE_SQL;
  }
  const sets = stateSets(state, values);
  if (sets !== null) text = text === '' ? `UPDATE search_state SET ${sets}` : `${text},\nstate AS (UPDATE search_state SET ${sets})`;
  if (text === '') return null;
  // A statement of WITH parts needs a main query; the parts run to completion whether or not it reads them.
  return { text: text.startsWith('UPDATE') ? text : `${text}\nSELECT 1`, values };
}

/** `column = $n, ...` for the state's given fields, their values appended to `values`; null when none is given. */
function stateSets(state: Partial<SearchIndexState> | undefined, values: unknown[]): string | null {
  if (state === undefined) return null;
  const sets: string[] = [];
  for (const [field, column, type] of STATE_COLUMNS) {
    const value = state[field];
    if (value === undefined) continue;
    checkStateValue(field, value);
    values.push(value);
    sets.push(`${column} = $${values.length}::${type}`);
  }
  return sets.length === 0 ? null : sets.join(', ');
}

function checkStateValue(field: keyof SearchIndexState, value: unknown): void {
  const ok = field === 'backfillBefore' ? value === null || typeof value === 'string'
    : field === 'backfillDone' ? typeof value === 'boolean'
    : typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
  if (!ok) throw new StoreError(`${COLLECTION}: state ${field} cannot be ${JSON.stringify(value)}`);
}

function checkedEntry(entry: IndexedTransaction): IndexedTransaction {
  if (typeof entry.id !== 'string' || entry.id === '') throw new StoreError(`${COLLECTION}: an entry needs a transaction id`);
  if (!(entry.requestTimestamp instanceof Date) || Number.isNaN(entry.requestTimestamp.getTime())) throw new StoreError(`${COLLECTION}: entry ${entry.id} needs a valid request time`);
  if (typeof entry.channelID !== 'string') throw new StoreError(`${COLLECTION}: entry ${entry.id} needs a channel id`);
  if (!Array.isArray(entry.keys) || typeof entry.text !== 'string') throw new StoreError(`${COLLECTION}: entry ${entry.id} needs keys and text`);
  return entry;
}

interface KeyRow {
  kind: KeyKind;
  value: string;
  /** A bit per name (search-keys.ts). */
  names: number;
  authorities: Set<string>;
}

/** The `search_keys` rows of one transaction: one per kind and normalised value, with its names and authorities. */
function searchableKeys(keys: readonly ClinicalKey[]): Iterable<KeyRow> {
  const rows = new Map<string, KeyRow>();
  for (const key of keys) {
    if (!SEARCHABLE.has(key.name)) continue;
    const name = key.name as SearchableKeyName;
    const value = normaliseKeyValue(key.value);
    if (value === '') continue;
    const kind = kindOf(name);
    const id = `${kind}\u0000${value}`;
    let row = rows.get(id);
    if (row === undefined) {
      row = { kind, value, names: 0, authorities: new Set() };
      rows.set(id, row);
    }
    row.names |= nameBit(name);
    const authority = key.authority === undefined ? '' : normaliseKeyValue(key.authority);
    if (authority !== '') row.authorities.add(qualifiedAuthority(name, authority));
  }
  return rows.values();
}
