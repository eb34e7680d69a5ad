/**
 * The search part of a transaction filter on PostgreSQL (issue 37): clinical keys and words, answered from the
 * search index's tables (search-schema.ts) and joined to `transactions` for every other condition.
 *
 * A search drives the statement from the index rather than from the log: the rows of one key condition come off
 * `search_keys_lookup` newest first (for `any`, one ordered scan per name merged, each skipping a transaction an
 * earlier name already gave), so a page reads only the entries it returns plus those the other filters refuse; the
 * channel list and the time bounds are decided on those index rows too. Further key conditions and the words are
 * tested on each row so found. Words alone drive from `search_docs`, where the planner weighs, by the words'
 * frequencies it keeps for the tsvector column, walking `search_docs_time` newest first testing each row (a common
 * word: a page comes after a few rows, and nothing is sorted) against collecting the matches from the GIN index and
 * sorting those (a rare word).
 */
import { ANY_KEY_NAMES } from '../../domain/clinical/clinical-key.js';
import type { KeyCondition } from '../../domain/clinical/clinical-key.js';
import type { NormalisedFilter } from '../transaction-filter.js';
import type { Params } from './filter.js';
import { allWordsQuery } from './search-words.js';

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

/** Where a search's rows come from and what else each must meet; the plain log when the filter searches nothing. */
export function searchSource(filter: NormalisedFilter, params: Params): SearchSource {
  const keys = filter.keys ?? [];
  const words = filter.words === undefined || filter.words.length === 0 ? null : params.add(allWordsQuery(filter.words));
  if (keys.length === 0 && words === null) return PLAIN;
  const conditions: string[] = [];
  if (keys.length === 0 && words !== null) {
    const rows = `SELECT sd.ts AS key_ts, sd.tx AS key_tx FROM search_docs sd WHERE ${[`sd.words @@ ${words}::tsquery`, ...narrowing(filter, params, 'sd')].join(' AND ')}`;
    return { from: joined(rows), order: SEARCH_ORDER, conditions };
  }
  const driver = keys.reduce((best, key) => (selectivity(key) < selectivity(best) ? key : best));
  for (const key of keys) {
    if (key !== driver) conditions.push(`EXISTS (SELECT 1 FROM search_keys sk WHERE sk.tx = transactions.id AND ${keyMatch(key, params, 'sk', names(key))})`);
  }
  if (words !== null) conditions.push(`EXISTS (SELECT 1 FROM search_docs sd WHERE sd.tx = transactions.id AND sd.words @@ ${words}::tsquery)`);
  return { from: joined(drivingRows(driver, filter, params)), order: SEARCH_ORDER, conditions };
}

function joined(rows: string): string {
  return `(${rows}) AS k JOIN transactions ON transactions.id = k.key_tx`;
}

/** Lower first: identifiers name a few transactions each, a message type a large share of them. */
function selectivity(key: KeyCondition): number {
  if (key.name === 'messageType') return 2;
  return key.name === 'any' ? 1 : 0;
}

function names(key: KeyCondition): readonly string[] {
  return key.name === 'any' ? ANY_KEY_NAMES : [key.name];
}

/**
 * The entries of one key condition, one ordered index scan per name it stands for; a transaction holding the value
 * under two of them (a patient ID that is also an order number) is given by the first only, so none comes twice.
 */
function drivingRows(key: KeyCondition, filter: NormalisedFilter, params: Params): string {
  const all = names(key);
  return all.map((name, i) => {
    const conditions = [keyMatch(key, params, 'e', [name]), ...narrowing(filter, params, 'e')];
    if (i > 0) conditions.push(`NOT EXISTS (SELECT 1 FROM search_keys d WHERE d.tx = e.tx AND ${keyMatch(key, params, 'd', all.slice(0, i))})`);
    return `SELECT e.ts AS key_ts, e.tx AS key_tx FROM search_keys e WHERE ${conditions.join(' AND ')}`;
  }).join(' UNION ALL ');
}

/** `alias`'s row is an entry of the key's value (and authority) under one of `among`. */
function keyMatch(key: KeyCondition, params: Params, alias: string, among: readonly string[]): string {
  const parts = [
    among.length === 1 ? `${alias}.name = ${params.add(among[0])}::text` : `${alias}.name = ANY(${params.add(among)}::text[])`,
    `${alias}.value = ${params.add(key.value)}::text`,
  ];
  if (key.authority !== undefined) parts.push(`${params.add(key.authority)}::text = ANY(${alias}.authorities)`);
  return parts.join(' AND ');
}

/** The filter's channels and time bounds on index rows, which carry both, so rows outside them are never joined. */
function narrowing(filter: NormalisedFilter, params: Params, alias: string): string[] {
  const parts: string[] = [];
  const channels = filter.channels;
  if (channels !== undefined) {
    if (channels.length === 0) parts.push('FALSE');
    else if (channels.length === 1) parts.push(`${alias}.channel = ${params.add(channels[0])}::text`);
    else parts.push(`${alias}.channel = ANY(${params.add(channels)}::text[])`);
  }
  if (filter.fromMs !== undefined) parts.push(`${alias}.ts >= ${params.add(filter.fromMs)}::bigint`);
  if (filter.toMs !== undefined) parts.push(`${alias}.ts <= ${params.add(filter.toMs)}::bigint`);
  return parts;
}
