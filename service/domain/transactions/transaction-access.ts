/**
 * Who may see which transactions, and the translation of the transactions API query (OpenHIM `filters` JSON plus
 * `filterLimit`/`filterPage`) into a `TransactionFilter` and page options. Every filter key OpenHIM's console sends is
 * understood (with its JSON-text values, case-insensitive regexes and `properties: {k: null}`); any other key is a
 * 400 naming it, never passed on to a query. Pure: no I/O.
 *
 * Access per channel: admins see everything; other users see a channel's transactions (metadata, headers, routes)
 * when its `txViewAcl` or `txViewFullAcl` names one of their groups, and its bodies only through `txViewFullAcl`.
 * `txRerunAcl` is for re-runs, which do not grant viewing here.
 */
import type { ValidationProblem } from '../../contracts/api.js';
import type { TransactionStatus } from '../../contracts/vocabulary.js';
import type { KeyCondition } from '../clinical/clinical-key.js';
import { pageWindow, MAX_PAGE_LIMIT } from '../util/paging.js';
import { isAdmin } from '../access/permissions.js';
import { isPlainObject } from '../util/plain-object.js';
import { patternProblem } from '../util/safe-pattern.js';
import { isTransactionStatus, parseStatusPattern, TRANSACTION_STATUSES } from './transaction-status.js';
import { isSearchParam, SEARCH_PARAMS, translateSearch } from './transaction-search.js';
import type { SearchInput } from './transaction-search.js';

/** Conditions on one route or orchestration: a transaction matches when one of its exchanges meets them all. */
export interface ExchangeFilter {
  /** Response status code or class, e.g. `404` or `5xx`. */
  statusCode?: string;
  host?: string;
  port?: number;
  /** Regular expression on the exchange's request path. */
  path?: string;
  /** Regular expression on the exchange's request query string. */
  querystring?: string;
}

/** The filters of the transactions list and export (COMPAT.md), all optional and combined with AND. */
export interface TransactionFilter {
  status?: readonly TransactionStatus[];
  /** Response status code or class, e.g. `404` or `5xx`. */
  statusCode?: string;
  channelID?: readonly string[];
  clientID?: string;
  method?: string;
  /** Regular expression on the request path. */
  path?: string;
  /** Regular expression on the request query string. */
  querystring?: string;
  /** The request's Host name and port, as recorded. */
  host?: string;
  port?: number;
  /** Request timestamp range, inclusive. */
  from?: Date;
  to?: Date;
  /** Every listed property must have this value; null: the property is set, whatever its value. */
  properties?: Readonly<Record<string, string | null>>;
  wasRerun?: boolean;
  /** True: re-run before (it has child transactions); false: never re-run. */
  hasChildren?: boolean;
  routes?: ExchangeFilter;
  orchestrations?: ExchangeFilter;
  /** Clinical keys from the search index (issue 37): every condition must hold. */
  keys?: readonly KeyCondition[];
  /** Words that must all appear in the transaction's indexed body text (plain words; no query syntax passes through). */
  text?: string;
}

export interface TransactionAccess {
  /** May see the channel's transactions (without bodies). */
  view: boolean;
  /** May also see request and response bodies. */
  bodies: boolean;
}

export interface ChannelTxAcls {
  txViewAcl: readonly string[];
  txViewFullAcl: readonly string[];
}

const NONE: TransactionAccess = { view: false, bodies: false };
const ALL: TransactionAccess = { view: true, bodies: true };

/** What a user may see of one channel's transactions. */
export function transactionAccess(actor: { groups: readonly string[] }, channel: ChannelTxAcls): TransactionAccess {
  if (isAdmin(actor)) return ALL;
  const member = (acl: readonly string[]) => acl.some((g) => actor.groups.includes(g));
  if (member(channel.txViewFullAcl)) return ALL;
  if (member(channel.txViewAcl)) return { view: true, bodies: false };
  return NONE;
}

/**
 * The channels whose transactions a user may see: `'all'` for admins, otherwise a map of channel id to access
 * holding only the channels the user may view.
 */
export function viewableChannels(actor: { groups: readonly string[] }, channels: readonly (ChannelTxAcls & { _id: string })[]): 'all' | Map<string, TransactionAccess> {
  if (isAdmin(actor)) return 'all';
  const visible = new Map<string, TransactionAccess>();
  for (const channel of channels) {
    const access = transactionAccess(actor, channel);
    if (access.view) visible.set(channel._id, access);
  }
  return visible;
}

/** Narrows a filter to the channels a user may view (the intersection with any channel filter already in it). */
export function restrictToChannels(filter: TransactionFilter, allowed: Iterable<string>): TransactionFilter {
  const allowedSet = new Set(allowed);
  const channelID = filter.channelID === undefined ? [...allowedSet] : filter.channelID.filter((id) => allowedSet.has(id));
  return { ...filter, channelID };
}

/**
 * The channels a filter names that are not among those allowed: a user filtering on a channel they may not view is
 * refused (403) rather than shown an empty list, as in OpenHIM.
 */
export function forbiddenChannels(filter: TransactionFilter, allowed: Iterable<string>): string[] {
  const allowedSet = new Set(allowed);
  return (filter.channelID ?? []).filter((id) => !allowedSet.has(id));
}

export const DEFAULT_LIMIT = 20;

export interface TransactionQueryInput extends SearchInput {
  filters?: string;
  filterLimit?: number | string;
  filterPage?: number | string;
}

export interface ParsedTransactionQuery {
  filter: TransactionFilter;
  limit: number;
  skip: number;
}

export type TransactionQueryResult = { ok: true; value: ParsedTransactionQuery } | { ok: false; problems: ValidationProblem[] };

/** The route and orchestration fields OpenHIM's console filters on, under `routes.` and `orchestrations.`. */
const EXCHANGE_FIELDS = ['response.status', 'request.host', 'request.port', 'request.path', 'request.querystring'] as const;
type ExchangeField = (typeof EXCHANGE_FIELDS)[number];
const EXCHANGE_FILTER: Record<ExchangeField, keyof ExchangeFilter> = {
  'response.status': 'statusCode',
  'request.host': 'host',
  'request.port': 'port',
  'request.path': 'path',
  'request.querystring': 'querystring',
};

/** The keys of OpenHIM's transaction `filters` object that Junction supports: every one its console sends. */
export const FILTER_KEYS = [
  'status',
  'response.status',
  'channelID',
  'clientID',
  'request.method',
  'request.path',
  'request.querystring',
  'request.host',
  'request.port',
  'request.timestamp',
  'properties',
  'wasRerun',
  'childIDs',
  ...EXCHANGE_FIELDS.map((field) => `routes.${field}` as const),
  ...EXCHANGE_FIELDS.map((field) => `orchestrations.${field}` as const),
] as const;
type FilterKey = (typeof FILTER_KEYS)[number];

const MAX_PATH_PATTERN = 500;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const PROPERTY_NAME = /^[^.$][^.]{0,99}$/;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

function integerIn(value: number | string | undefined, fallback: number, min: number, max: number): number | null {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n >= min && n <= max ? n : null;
}

function parseDate(value: unknown): Date | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value);
  if (typeof value !== 'string' || !ISO_DATE.test(value.trim())) return null;
  const date = new Date(value.trim());
  return Number.isNaN(date.getTime()) ? null : date;
}

/** One filter key's translation: the fields it sets, or the problem with its value. */
type KeyResult = { set: Partial<TransactionFilter> } | { problem: string; sub?: string };

function stringOrList(value: unknown): string[] | null {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0 || list.some((v) => typeof v !== 'string' || v === '')) return null;
  return list as string[];
}

/**
 * A regular expression filter as OpenHIM runs it (`new RegExp(value, 'i')`): case-insensitive, and one that runs in
 * linear time, as the log runs it against every row it scans.
 */
function regexFilter(value: unknown): { pattern: string } | { problem: string } {
  if (typeof value !== 'string' || value === '' || value.length > MAX_PATH_PATTERN) return { problem: `must be a regular expression of 1 to ${MAX_PATH_PATTERN} characters` };
  const pattern = `(?i)${value}`;
  const problem = patternProblem(pattern);
  return problem === null ? { pattern } : { problem };
}

/** A port as a number or, as the console's text box sends it, its digits. */
function portOf(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,5}$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n >= 0 && n <= 65535 ? n : null;
}

/** OpenHIM's console sends `{"$exists":true,"$ne":[]}` (re-run before) or `{"$eq":[]}` (never), as JSON text. */
function childIDsFilter(value: unknown): KeyResult {
  const problem = 'must be {"$exists": true, "$ne": []} (re-run before) or {"$eq": []} (never re-run), as an object or its JSON text';
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return { problem };
    }
  }
  if (!isPlainObject(parsed)) return { problem };
  const keys = Object.keys(parsed).sort().join(',');
  const emptyList = (v: unknown) => Array.isArray(v) && v.length === 0;
  if ((keys === '$exists,$ne' && parsed.$exists === true && emptyList(parsed.$ne)) || (keys === '$ne' && emptyList(parsed.$ne))) return { set: { hasChildren: true } };
  if (keys === '$eq' && emptyList(parsed.$eq)) return { set: { hasChildren: false } };
  return { problem };
}

/** `routes.response.status`, `orchestrations.request.path` and the like: one condition on the route or orchestration. */
function translateExchangeKey(field: ExchangeField, value: unknown): { set: ExchangeFilter } | { problem: string } {
  switch (field) {
    case 'response.status':
      if (!((typeof value === 'string' || typeof value === 'number') && parseStatusPattern(value) !== null)) return { problem: 'must be a status code such as 404 or a class such as "5xx"' };
      return { set: { statusCode: String(value).trim().toLowerCase() } };
    case 'request.host':
      if (typeof value !== 'string' || value === '' || value.length > 255) return { problem: 'must be a host name' };
      return { set: { host: value } };
    case 'request.port': {
      const port = portOf(value);
      return port === null ? { problem: 'must be a port number' } : { set: { port } };
    }
    case 'request.path':
    case 'request.querystring': {
      const regex = regexFilter(value);
      if ('problem' in regex) return regex;
      return { set: { [EXCHANGE_FILTER[field]]: regex.pattern } };
    }
  }
}

function exchangeKey(key: FilterKey): { list: 'routes' | 'orchestrations'; field: ExchangeField } | null {
  const dot = key.indexOf('.');
  const list = key.slice(0, dot);
  if (list !== 'routes' && list !== 'orchestrations') return null;
  return { list, field: key.slice(dot + 1) as ExchangeField };
}

function translateKey(key: FilterKey, value: unknown): KeyResult {
  const exchange = exchangeKey(key);
  if (exchange !== null) {
    const result = translateExchangeKey(exchange.field, value);
    return 'problem' in result ? result : { set: { [exchange.list]: result.set } };
  }
  switch (key) {
    case 'status': {
      const list = stringOrList(value);
      if (list === null || !list.every(isTransactionStatus)) return { problem: `must be one of: ${TRANSACTION_STATUSES.map((s) => JSON.stringify(s)).join(', ')} (or a list of them)` };
      return { set: { status: list } };
    }
    case 'response.status':
      return translateExchangeKey(key, value);
    case 'channelID': {
      const list = stringOrList(value);
      if (list === null || !list.every((id) => ID.test(id))) return { problem: 'must be a channel id or a list of channel ids' };
      return { set: { channelID: list } };
    }
    case 'clientID':
      if (typeof value !== 'string' || !ID.test(value)) return { problem: 'must be a client id' };
      return { set: { clientID: value } };
    case 'request.method':
      if (typeof value !== 'string' || !/^[A-Za-z]{1,16}$/.test(value)) return { problem: 'must be an HTTP method name such as GET' };
      return { set: { method: value.toUpperCase() } };
    case 'request.path':
    case 'request.querystring':
    case 'request.host':
    case 'request.port':
      // The transaction's own request line takes the same conditions as a route's, under the same names.
      return translateExchangeKey(key, value);
    case 'request.timestamp':
      return translateRange(value);
    case 'properties': {
      if (!isPlainObject(value) || Object.keys(value).length === 0) return { problem: 'must be an object of property name: value (null: the property is set, whatever its value)' };
      const properties: Record<string, string | null> = {};
      for (const [name, v] of Object.entries(value)) {
        if (!PROPERTY_NAME.test(name)) return { problem: `has a property name "${name}" that is empty, too long, has a dot or starts with $` };
        if (typeof v !== 'string' && v !== null) return { problem: 'must be a string, or null for any value', sub: name };
        properties[name] = v;
      }
      return { set: { properties } };
    }
    case 'wasRerun':
      if (typeof value !== 'boolean') return { problem: 'must be true or false' };
      return { set: { wasRerun: value } };
    case 'childIDs':
      return childIDsFilter(value);
    default:
      // The route and orchestration keys were translated above.
      return { problem: 'is not a known filter' };
  }
}

/** `{"$gte": date, "$lte": date}`, as an object or (as OpenHIM's console sends it) a JSON string. */
function translateRange(value: unknown): KeyResult {
  let range = value;
  if (typeof value === 'string') {
    try {
      range = JSON.parse(value);
    } catch {
      return { problem: 'must be {"$gte": date, "$lte": date} (an object or its JSON text)' };
    }
  }
  if (!isPlainObject(range) || Object.keys(range).length === 0) return { problem: 'must be {"$gte": date, "$lte": date} with at least one bound' };
  const unknown = Object.keys(range).find((k) => k !== '$gte' && k !== '$lte');
  if (unknown !== undefined) return { problem: `has an unknown bound "${unknown}"; use $gte and $lte` };
  const set: Partial<TransactionFilter> = {};
  if (range.$gte !== undefined) {
    const from = parseDate(range.$gte);
    if (from === null) return { problem: 'must be an ISO 8601 date such as 2024-05-01T00:00:00Z', sub: '$gte' };
    set.from = from;
  }
  if (range.$lte !== undefined) {
    const to = parseDate(range.$lte);
    if (to === null) return { problem: 'must be an ISO 8601 date such as 2024-05-31T23:59:59Z', sub: '$lte' };
    set.to = to;
  }
  if (set.from !== undefined && set.to !== undefined && set.from > set.to) return { problem: 'has $gte after $lte' };
  return { set };
}

/** Parses the `filters` JSON text alone. */
export function parseFilters(text: string | undefined): { ok: true; filter: TransactionFilter } | { ok: false; problems: ValidationProblem[] } {
  if (text === undefined || text.trim() === '') return { ok: true, filter: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problems: [{ path: 'querystring.filters', message: 'must be a JSON object' }] };
  }
  return translateFilters(parsed, 'querystring.filters');
}

/** Translates a `filters` object already parsed from JSON (the body of `POST /bulkrerun`); problems are named under `at`. */
export function translateFilters(parsed: unknown, at: string): { ok: true; filter: TransactionFilter } | { ok: false; problems: ValidationProblem[] } {
  if (!isPlainObject(parsed)) return { ok: false, problems: [{ path: at, message: 'must be a JSON object' }] };
  const problems: ValidationProblem[] = [];
  let filter: TransactionFilter = {};
  const search: SearchInput = {};
  for (const [key, value] of Object.entries(parsed)) {
    const path = `${at}.${key}`;
    if (isSearchParam(key)) {
      search[key] = value;
      continue;
    }
    if (!(FILTER_KEYS as readonly string[]).includes(key)) {
      problems.push({ path, message: `is not a known filter; use one of: ${[...FILTER_KEYS, ...SEARCH_PARAMS].join(', ')}` });
      continue;
    }
    const result = translateKey(key as FilterKey, value);
    if ('problem' in result) problems.push({ path: result.sub === undefined ? path : `${path}.${result.sub}`, message: result.problem });
    else filter = merge(filter, result.set);
  }
  const searched = withSearch(filter, search, at);
  if (!searched.ok) problems.push(...searched.problems);
  return problems.length > 0 || !searched.ok ? { ok: false, problems } : { ok: true, filter: searched.filter };
}

/**
 * Adds the clinical search parameters (issue 37) to a filter: key conditions join those already in it (all must
 * hold); one `text` only, so a text given both in `filters` and as a query parameter is refused rather than guessed.
 */
export function withSearch(filter: TransactionFilter, input: SearchInput, at: string): { ok: true; filter: TransactionFilter } | { ok: false; problems: ValidationProblem[] } {
  const search = translateSearch(input, at);
  if (!search.ok) return search;
  if (search.text !== undefined && filter.text !== undefined) return { ok: false, problems: [{ path: `${at}.text`, message: 'is given twice (in filters and as a query parameter); give it once' }] };
  const result: TransactionFilter = { ...filter };
  if (search.keys.length > 0) result.keys = [...(filter.keys ?? []), ...search.keys];
  if (search.text !== undefined) result.text = search.text;
  return { ok: true, filter: result };
}

/** Adds one key's fields; the route (or orchestration) conditions of several keys join into one. */
function merge(filter: TransactionFilter, set: Partial<TransactionFilter>): TransactionFilter {
  const merged = { ...filter, ...set };
  if (set.routes !== undefined) merged.routes = { ...filter.routes, ...set.routes };
  if (set.orchestrations !== undefined) merged.orchestrations = { ...filter.orchestrations, ...set.orchestrations };
  return merged;
}

/** Translates the list query: filters plus page options (filterLimit 0 (no limit) to 100,000, default 20; filterPage from 0). */
export function parseTransactionQuery(input: TransactionQueryInput): TransactionQueryResult {
  const problems: ValidationProblem[] = [];
  const limit = integerIn(input.filterLimit, DEFAULT_LIMIT, 0, MAX_PAGE_LIMIT);
  if (limit === null) problems.push({ path: 'querystring.filterLimit', message: `must be an integer from 0 (no limit) to ${MAX_PAGE_LIMIT}` });
  const page = integerIn(input.filterPage, 0, 0, Number.MAX_SAFE_INTEGER);
  const window = limit === null || page === null ? null : pageWindow(limit, page);
  if (window === null && limit !== null) problems.push({ path: 'querystring.filterPage', message: 'must be an integer of 0 or more, and filterPage × filterLimit an exact integer' });
  const filters = parseFilters(input.filters);
  if (!filters.ok) problems.push(...filters.problems);
  if (problems.length > 0 || window === null || !filters.ok) return { ok: false, problems };
  const searched = withSearch(filters.filter, input, 'querystring');
  if (!searched.ok) return searched;
  return { ok: true, value: { filter: searched.filter, ...window } };
}
