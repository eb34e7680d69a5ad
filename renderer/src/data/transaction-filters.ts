/**
 * The transaction list's filters and page as URL search parameters (so a filtered view can be bookmarked, shared and
 * reloaded), and their translation into the API's `filters` object. Pure.
 *
 * URL keys: status (repeated), channel, client, method, response, path, from, to (ISO 8601), prop (repeated
 * `name=value`), the clinical search (issue 37: q, text, patientId with authority, orderNumber, controlId), page (from
 * 1), size.
 */
import type { TransactionFilters, TransactionStatus } from '../../../service/contracts/transactions';
import { isStatus } from './status';

export interface ListFilters {
  status: TransactionStatus[];
  channel: string | null;
  client: string | null;
  method: string | null;
  /** A response status code (404) or class (5xx). */
  response: string;
  /** A regular expression on the request path. */
  path: string;
  /** ISO 8601 instants. */
  from: string | null;
  to: string | null;
  /** `name=value` pairs. */
  properties: string[];
  /** The search box as keys: a patient ID, order number or control ID ('' when not searching). */
  q: string;
  /** The search box as words of the bodies. */
  text: string;
  /** One key exactly, as a link from a message asks ("every message with this value"). */
  patientId: string;
  authority: string;
  orderNumber: string;
  controlId: string;
}

/** The search fields of the list's filters: what the search box and the links from a message set. */
export const SEARCH_FIELDS = ['q', 'text', 'patientId', 'authority', 'orderNumber', 'controlId'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export interface ListQuery {
  filters: ListFilters;
  /** From 1. */
  page: number;
  size: number;
}

export const PAGE_SIZES = [20, 50, 100] as const;
export const DEFAULT_SIZE = 20;

export const NO_SEARCH: Pick<ListFilters, SearchField> = { q: '', text: '', patientId: '', authority: '', orderNumber: '', controlId: '' };

export const EMPTY_FILTERS: ListFilters = { status: [], channel: null, client: null, method: null, response: '', path: '', from: null, to: null, properties: [], ...NO_SEARCH };

function isoOrNull(value: string | null): string | null {
  if (value === null || value === '') return null;
  return Number.isNaN(new Date(value).getTime()) ? null : value;
}

/** The filters and page a URL describes; unknown or malformed values are ignored. */
export function queryFromParams(params: URLSearchParams): ListQuery {
  const page = Number(params.get('page') ?? '1');
  const size = Number(params.get('size') ?? String(DEFAULT_SIZE));
  return {
    filters: {
      status: params.getAll('status').filter(isStatus),
      channel: params.get('channel') || null,
      client: params.get('client') || null,
      method: params.get('method') || null,
      response: params.get('response') ?? '',
      path: params.get('path') ?? '',
      from: isoOrNull(params.get('from')),
      to: isoOrNull(params.get('to')),
      properties: params.getAll('prop').filter((p) => splitProperty(p) !== null),
      ...searchFromParams(params),
    },
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_SIZE,
  };
}

/** The URL parameters of a query; defaults are left out so plain views keep plain URLs. */
export function paramsFromQuery(query: ListQuery): URLSearchParams {
  const params = new URLSearchParams();
  const { filters } = query;
  for (const status of filters.status) params.append('status', status);
  if (filters.channel !== null) params.set('channel', filters.channel);
  if (filters.client !== null) params.set('client', filters.client);
  if (filters.method !== null) params.set('method', filters.method);
  if (filters.response !== '') params.set('response', filters.response);
  if (filters.path !== '') params.set('path', filters.path);
  if (filters.from !== null) params.set('from', filters.from);
  if (filters.to !== null) params.set('to', filters.to);
  for (const property of filters.properties) params.append('prop', property);
  for (const field of SEARCH_FIELDS) if (filters[field].trim() !== '') params.set(field, filters[field].trim());
  if (query.page !== 1) params.set('page', String(query.page));
  if (query.size !== DEFAULT_SIZE) params.set('size', String(query.size));
  return params;
}

/** `name=value` as its two parts; null without a name or an `=`. */
export function splitProperty(pair: string): [string, string] | null {
  const at = pair.indexOf('=');
  if (at <= 0) return null;
  const name = pair.slice(0, at).trim();
  if (name === '' || name.startsWith('$') || name.includes('.')) return null;
  return [name, pair.slice(at + 1).trim()];
}

/** Why a path pattern cannot be used, or null when it compiles. */
export function pathPatternProblem(pattern: string): string | null {
  if (pattern === '') return null;
  try {
    new RegExp(pattern);
    return null;
  } catch {
    return 'This is not a valid regular expression';
  }
}

/** Why a response status filter cannot be used, or null. */
export function responseStatusProblem(value: string): string | null {
  if (value === '' || /^\s*[1-5](\d\d|xx)\s*$/i.test(value)) return null;
  return 'Use a status code such as 404 or a class such as 5xx';
}

/** The API's `filters` object for the list, count, export and bulk re-run. */
export function apiFilters(filters: ListFilters): TransactionFilters {
  const out: TransactionFilters = {};
  if (filters.status.length === 1) out.status = filters.status[0];
  else if (filters.status.length > 1) out.status = [...filters.status];
  if (filters.channel !== null) out.channelID = filters.channel;
  if (filters.client !== null) out.clientID = filters.client;
  if (filters.method !== null) out['request.method'] = filters.method;
  if (filters.response.trim() !== '' && responseStatusProblem(filters.response) === null) out['response.status'] = filters.response.trim().toLowerCase();
  if (filters.path !== '' && pathPatternProblem(filters.path) === null) out['request.path'] = filters.path;
  if (filters.from !== null || filters.to !== null) {
    out['request.timestamp'] = {
      ...(filters.from === null ? {} : { $gte: filters.from }),
      ...(filters.to === null ? {} : { $lte: filters.to }),
    };
  }
  const properties: Record<string, string> = {};
  for (const pair of filters.properties) {
    const split = splitProperty(pair);
    if (split !== null) properties[split[0]] = split[1];
  }
  if (Object.keys(properties).length > 0) out.properties = properties;
  for (const field of SEARCH_FIELDS) {
    const value = filters[field].trim();
    // An authority narrows a patient ID and means nothing alone (the API refuses it alone).
    if (value !== '' && (field !== 'authority' || filters.patientId.trim() !== '')) out[field] = value;
  }
  return out;
}

function searchFromParams(params: URLSearchParams): Pick<ListFilters, SearchField> {
  const search = { ...NO_SEARCH };
  for (const field of SEARCH_FIELDS) search[field] = (params.get(field) ?? '').slice(0, field === 'text' ? 1000 : 200);
  return search;
}

/**
 * What the search box searches (issue 37). An identifier has no spaces, so one word is looked up as a key first (a
 * patient ID, an order number or a control ID: fast and exact), and the list then offers the same value as text; a
 * value of several words can only be text. Everything else of the search is cleared: the box starts a new search.
 */
export function searchFromBox(value: string): Pick<ListFilters, SearchField> {
  const trimmed = value.trim();
  if (trimmed === '') return { ...NO_SEARCH };
  return /\s/.test(trimmed) ? { ...NO_SEARCH, text: trimmed } : { ...NO_SEARCH, q: trimmed };
}

/** The search box's value for the filters: what was searched, as typed. */
export function boxValue(filters: Pick<ListFilters, SearchField>): string {
  return filters.q !== '' ? filters.q : filters.text;
}

/** The value searched by key that could also be searched as text, or null (a text search, or none). */
export function textAlternative(filters: Pick<ListFilters, SearchField>): string | null {
  if (filters.text !== '') return null;
  const value = filters.q || filters.patientId || filters.orderNumber || filters.controlId;
  return value === '' ? null : value;
}

/** The list's link for every message with this key ("every message with this value"). */
export function keySearchLink(name: 'patientId' | 'orderNumber' | 'controlId', value: string, authority?: string): string {
  const params = new URLSearchParams();
  params.set(name, value);
  if (name === 'patientId' && authority !== undefined && authority !== '') params.set('authority', authority);
  return `/transactions?${params.toString()}`;
}

/** The key search in force, in words: `patient ID 1004 (MRN)`, `"1004"`, or null. */
export function searchInWords(filters: Pick<ListFilters, SearchField>): string | null {
  if (filters.patientId !== '') return `patient ID ${filters.patientId}${filters.authority === '' ? '' : ` (${filters.authority})`}`;
  if (filters.orderNumber !== '') return `order number ${filters.orderNumber}`;
  if (filters.controlId !== '') return `control ID ${filters.controlId}`;
  if (filters.q !== '') return `patient ID, order number or control ID ${filters.q}`;
  if (filters.text !== '') return `message text "${filters.text}"`;
  return null;
}

/** Why the date range cannot be used, or null. */
export function dateOrderProblem(filters: ListFilters): string | null {
  if (filters.from === null || filters.to === null) return null;
  return new Date(filters.from) > new Date(filters.to) ? 'Choose a From time before the To time.' : null;
}

/** True when any filter is set. */
export function hasFilters(filters: ListFilters): boolean {
  return Object.keys(apiFilters(filters)).length > 0;
}

/** An ISO instant as the value of a `datetime-local` input (local time, to the minute). */
export function toLocalInput(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` value (local time) as an ISO instant; `end` takes the last millisecond of that minute. */
export function fromLocalInput(value: string, end = false): string | null {
  if (value === '') return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  if (end && date.getSeconds() === 0) date.setSeconds(59, 999);
  return date.toISOString();
}

/** The quick time ranges of the list's filters (issue 36), in the browser's local time zone. */
export const QUICK_RANGES = [
  { key: 'lastHour', label: 'Last hour' },
  { key: 'today', label: 'Today' },
  { key: 'yesterday', label: 'Yesterday' },
  { key: 'last7Days', label: 'Last 7 days' },
] as const;

export type QuickRange = (typeof QUICK_RANGES)[number]['key'];

/** Local midnight `days` days after the day of `now` (negative for before); DST-safe, as the date parts are set. */
function localMidnight(now: Date, days: number): Date {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + days);
}

/**
 * The From and To of a quick range at `now`, as ISO instants: the last hour and today up to now (To left open, so
 * what arrives next still matches), yesterday from its local midnight to its last millisecond, the last 7 days as
 * today and the six days before it.
 */
export function quickRange(key: QuickRange, now: Date): { from: string; to: string | null } {
  switch (key) {
    case 'lastHour':
      return { from: new Date(now.getTime() - 60 * 60 * 1000).toISOString(), to: null };
    case 'today':
      return { from: localMidnight(now, 0).toISOString(), to: null };
    case 'yesterday':
      return { from: localMidnight(now, -1).toISOString(), to: new Date(localMidnight(now, 0).getTime() - 1).toISOString() };
    case 'last7Days':
      return { from: localMidnight(now, -6).toISOString(), to: null };
  }
}

/**
 * The quick range the filters' dates are, at `now`, or null. The last hour is recognised for as long as its start is
 * within a minute of an hour ago, since it moves with the clock.
 */
export function activeQuickRange(filters: Pick<ListFilters, 'from' | 'to'>, now: Date): QuickRange | null {
  if (filters.from === null) return null;
  for (const { key } of QUICK_RANGES) {
    const range = quickRange(key, now);
    if (key === 'lastHour') {
      if (filters.to === null && Math.abs(new Date(filters.from).getTime() - new Date(range.from).getTime()) < 60_000) return key;
    } else if (filters.from === range.from && filters.to === range.to) return key;
  }
  return null;
}
