/**
 * The search part of a transaction filter on PostgreSQL (issue 37): clinical keys and words, answered from the
 * search index's tables (search-schema.ts) and joined to `transactions` for every other condition.
 *
 * A search drives the statement from the index rather than from the log. A key condition's rows come off
 * `search_keys_lookup` newest first (`any` too: its three names share one kind), so a page reads only the entries it
 * returns plus those the other filters refuse; the channel list and the time bounds are decided on those index
 * entries too. Further key conditions and the words are tested on each row so found. Words alone drive from
 * `search_docs` in one of two ways, chosen by the caller from how common the words are (`WordsPlan`): a common word
 * walks `search_docs_time` newest first testing each row (a page comes after a few rows, nothing is sorted, nothing
 * collected); rarer ones are collected from the GIN index, behind a fence the planner cannot reorder, and only those
 * few are sorted. Left to itself, the planner walked for a rare word too, through every row.
 */
import type { KeyCondition } from '../../domain/clinical/clinical-key.js';
import type { NormalisedFilter } from '../transaction-filter.js';
import type { Params } from './filter.js';
import { authorityNeedle, kindOf, nameBit, namesOf, qualifiedAuthority } from './search-keys.js';
import { allWordsQuery, WORDS_VECTOR } from './search-words.js';

/** How words alone are found: walking newest first (common words) or collected from the GIN index (the others). */
export type WordsPlan = 'walk' | 'collect';

export interface SearchSource {
  /** The FROM clause: `transactions`, or the matching index rows (`k`) joined to it. */
  from: string;
  /** The columns the rows go newest first by. */
  order: { ts: string; id: string };
  /** Conditions on each `transactions` row, beside the filter's others. */
  conditions: string[];
}

const PLAIN: SearchSource = { from: 'transactions', order: { ts: 'ts', id: 'id' }, conditions: [] };
const SEARCH_ORDER = { ts: 'k.key_ts', id: 'k.key_tx' };

/** A word in at least this share of the indexed transactions is walked to newest first; rarer ones are collected. */
export const WALK_FROM_SHARE = 0.005;

/**
 * The plan for words alone, from the share of indexed transactions each word is in, as the statistics of
 * `search_docs.words` tell it (its most common elements; a word missing from them is rarer than all of them): walk
 * when every word is common, so that a page is a few rows away; collect when any is rare, as the rarest bounds the
 * matches.
 */
export function wordsPlanOf(words: readonly string[], shares: ReadonlyMap<string, number>): WordsPlan {
  return words.every((word) => (shares.get(word) ?? 0) >= WALK_FROM_SHARE) ? 'walk' : 'collect';
}

/** Where a search's rows come from and what else each must meet; the plain log when the filter searches nothing. */
export function searchSource(filter: NormalisedFilter, params: Params, wordsPlan: WordsPlan = 'collect'): SearchSource {
  const keys = filter.keys ?? [];
  const words = filter.words === undefined || filter.words.length === 0 ? null : params.add(allWordsQuery(filter.words));
  if (keys.length === 0 && words === null) return PLAIN;
  const conditions: string[] = [];
  if (keys.length === 0 && words !== null) {
    const rows = `SELECT sd.ts AS key_ts, sd.tx AS key_tx FROM search_docs sd WHERE ${[`${WORDS_VECTOR('sd')} @@ ${words}::tsquery`, ...narrowing(filter, params, 'sd')].join(' AND ')}`;
    if (wordsPlan === 'walk') return { from: joined(rows), order: SEARCH_ORDER, conditions };
    // OFFSET 0 keeps each side whole: the matches planned alone (without the page's ORDER BY and LIMIT to tempt a
    // walk) and sorted, then each transaction read by its key only for the matches the page reaches, where the
    // planner, misjudging how few the matches are, had hashed the whole log to join them, or joined them all.
    return {
      from: `(${rows} ORDER BY sd.ts DESC, sd.tx DESC OFFSET 0) AS k CROSS JOIN LATERAL (SELECT * FROM transactions t WHERE t.id = encode(k.key_tx, 'hex') OFFSET 0) AS transactions`,
      order: SEARCH_ORDER,
      conditions,
    };
  }
  const driver = keys.reduce((best, key) => (selectivity(key) < selectivity(best) ? key : best));
  for (const key of keys) {
    if (key !== driver) conditions.push(`EXISTS (SELECT 1 FROM search_keys sk WHERE sk.tx = decode(transactions.id, 'hex') AND ${keyMatch(key, params, 'sk')})`);
  }
  if (words !== null) conditions.push(`EXISTS (SELECT 1 FROM search_docs sd WHERE sd.tx = decode(transactions.id, 'hex') AND ${WORDS_VECTOR('sd')} @@ ${words}::tsquery)`);
  const rows = `SELECT e.ts AS key_ts, e.tx AS key_tx FROM search_keys e WHERE ${[keyMatch(driver, params, 'e'), ...narrowing(filter, params, 'e')].join(' AND ')}`;
  return { from: joined(rows), order: SEARCH_ORDER, conditions };
}

function joined(rows: string): string {
  return `(${rows}) AS k JOIN transactions ON transactions.id = encode(k.key_tx, 'hex')`;
}

/** Lower first: identifiers name a few transactions each, a message type a large share of them. */
function selectivity(key: KeyCondition): number {
  if (key.name === 'messageType') return 2;
  return key.name === 'any' ? 1 : 0;
}

/** `alias`'s row holds the key's value under one of its names (and, when asked, with that authority). */
function keyMatch(key: KeyCondition, params: Params, alias: string): string {
  const parts = [`${alias}.kind = ${params.add(kindOf(key.name))}::"char"`, `${alias}.value = ${params.add(key.value)}::text`];
  const names = namesOf(key);
  // A `type` row only ever holds the message type, and `any` takes every name an `id` row can hold.
  if (key.name !== 'any' && key.name !== 'messageType') parts.push(`(${alias}.names & ${params.add(nameBit(key.name))}::smallint) <> 0`);
  if (key.authority !== undefined) {
    const authority = key.authority;
    const found = names.map((name) => `strpos(${alias}.authorities, ${params.add(authorityNeedle(qualifiedAuthority(name, authority)))}::text) > 0`);
    parts.push(found.length === 1 ? (found[0] as string) : `(${found.join(' OR ')})`);
  }
  return parts.join(' AND ');
}

/** The filter's channels and time bounds on index rows, which carry both, so rows outside them are never joined. */
function narrowing(filter: NormalisedFilter, params: Params, alias: string): string[] {
  const parts: string[] = [];
  const channels = filter.channels;
  if (channels !== undefined) {
    // Index rows name a channel by its number (search_channels), looked up once for the statement.
    if (channels.length === 0) parts.push('FALSE');
    else if (channels.length === 1) parts.push(`${alias}.channel = (SELECT id FROM search_channels WHERE channel = ${params.add(channels[0])}::text)`);
    else parts.push(`${alias}.channel = ANY(ARRAY(SELECT id FROM search_channels WHERE channel = ANY(${params.add(channels)}::text[])))`);
  }
  if (filter.fromMs !== undefined) parts.push(`${alias}.ts >= ${params.add(filter.fromMs)}::bigint`);
  if (filter.toMs !== undefined) parts.push(`${alias}.ts <= ${params.add(filter.toMs)}::bigint`);
  return parts;
}
