/**
 * The clinical search of the transactions API (issue 37): the parameters `patientId` (with `authority`),
 * `orderNumber`, `controlId`, `messageType`, `q` (any of the first three: the console's one box) and `text`, as query
 * parameters or keys of the `filters` object, turned into the filter's `keys` and `text`; which channels a text search
 * may look into; and which of a transaction's stored keys made it match, for the list's `match`. Pure: no I/O.
 */
import type { ValidationProblem } from '../../contracts/api.js';
import type { TransactionKeyMatch } from '../../contracts/transactions.js';
import { ANY_KEY_NAMES, MAX_KEY_LENGTH, normaliseKeyValue } from '../clinical/clinical-key.js';
import type { ClinicalKey, KeyCondition, SearchableKeyName } from '../clinical/clinical-key.js';

/** The search parameters, in the order their problems are named. */
export const SEARCH_PARAMS = ['patientId', 'authority', 'orderNumber', 'controlId', 'messageType', 'q', 'text'] as const;
export type SearchParam = (typeof SEARCH_PARAMS)[number];
export type SearchInput = Partial<Record<SearchParam, unknown>>;

/** Longest `text` accepted: a sentence, not a document. */
export const MAX_TEXT_LENGTH = 1000;
/** Most words of a `text` search (the storage's own limit). */
export const MAX_TEXT_WORDS = 16;
/** Counts of a text search stop here and say "more than": counting every match of a common word would take seconds. */
export const ESTIMATE_CAP = 10_000;

/** Which key name each parameter searches (`q`: a patient ID, order number or control ID). */
const KEY_OF: Record<Exclude<SearchParam, 'authority' | 'text'>, SearchableKeyName | 'any'> = {
  patientId: 'patientId',
  orderNumber: 'orderNumber',
  controlId: 'controlId',
  messageType: 'messageType',
  q: 'any',
};

export function isSearchParam(name: string): name is SearchParam {
  return (SEARCH_PARAMS as readonly string[]).includes(name);
}

export type SearchResult = { ok: true; keys: KeyCondition[]; text?: string } | { ok: false; problems: ValidationProblem[] };

function valueProblem(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return 'must be text';
  if (value.trim() === '') return 'must not be empty';
  if (value.length > max) return `must be at most ${max} characters`;
  return null;
}

/** The words a text search is split into, as the storage splits it (letters and digits). */
export function searchWords(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The key conditions and text of the search parameters given; problems are named under `at` (`querystring` or
 * `querystring.filters`). `authority` narrows `patientId` only, so it is refused alone.
 */
export function translateSearch(input: SearchInput, at: string): SearchResult {
  const problems: ValidationProblem[] = [];
  const keys: KeyCondition[] = [];
  let text: string | undefined;
  for (const param of SEARCH_PARAMS) {
    const value = input[param];
    if (value === undefined) continue;
    const path = `${at}.${param}`;
    if (param === 'text') {
      const problem = valueProblem(value, MAX_TEXT_LENGTH);
      if (problem !== null) problems.push({ path, message: problem });
      else if (searchWords(value as string).length === 0) problems.push({ path, message: 'must hold at least one letter or digit' });
      else if (searchWords(value as string).length > MAX_TEXT_WORDS) problems.push({ path, message: `may hold at most ${MAX_TEXT_WORDS} words` });
      else text = value as string;
      continue;
    }
    const problem = valueProblem(value, MAX_KEY_LENGTH);
    if (problem !== null) {
      problems.push({ path, message: problem });
      continue;
    }
    if (param === 'authority') {
      if (input.patientId === undefined) problems.push({ path, message: 'narrows patientId: give patientId with it' });
      continue;
    }
    const condition: KeyCondition = { name: KEY_OF[param], value: (value as string).trim() };
    if (param === 'patientId' && typeof input.authority === 'string' && input.authority.trim() !== '') condition.authority = input.authority.trim();
    keys.push(condition);
  }
  if (problems.length > 0) return { ok: false, problems };
  return text === undefined ? { ok: true, keys } : { ok: true, keys, text };
}

/** True when a filter searches the index (a key or text), which needs search to be on. */
export function searchesIndex(filter: { keys?: readonly unknown[]; text?: string }): boolean {
  return (filter.keys !== undefined && filter.keys.length > 0) || filter.text !== undefined;
}

/**
 * The channels a text search may look into: of those the user may view, the ones whose bodies they may read (the text
 * is the bodies' words). A user who reads no bodies finds nothing by text, and is not told why: an error would say
 * that something matched.
 */
export function textSearchChannels<A extends { bodies: boolean }>(viewable: ReadonlyMap<string, A>): string[] {
  return [...viewable].filter(([, access]) => access.bodies).map(([id]) => id);
}

function keyNames(condition: KeyCondition): readonly string[] {
  return condition.name === 'any' ? ANY_KEY_NAMES : [condition.name];
}

/** The stored keys that meet one of the conditions, as the list shows them: each once, in the order stored. */
export function matchedKeys(stored: readonly ClinicalKey[], conditions: readonly KeyCondition[]): TransactionKeyMatch[] {
  const wanted = conditions.map((c) => ({ names: keyNames(c), value: normaliseKeyValue(c.value), authority: c.authority === undefined ? undefined : normaliseKeyValue(c.authority) }));
  const seen = new Set<string>();
  const matches: TransactionKeyMatch[] = [];
  for (const key of stored) {
    const value = normaliseKeyValue(key.value);
    const authority = key.authority === undefined ? undefined : normaliseKeyValue(key.authority);
    const hit = wanted.some((w) => w.names.includes(key.name) && w.value === value && (w.authority === undefined || w.authority === authority));
    if (!hit) continue;
    const id = `${key.name}\u0000${key.field}\u0000${key.value}\u0000${key.authority ?? ''}`;
    if (seen.has(id)) continue;
    seen.add(id);
    matches.push({ name: key.name, field: key.field, value: key.value, ...(key.authority === undefined ? {} : { authority: key.authority }) });
  }
  return matches;
}
