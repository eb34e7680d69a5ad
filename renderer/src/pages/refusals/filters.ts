/** The Refused list's filters as URL parameters, and their translation to the API's query. Pure. */
import type { RefusalsQuery } from '../../api/refusals';

export const PAGE_SIZES = [20, 50, 100] as const;

export interface RefusalFilters {
  from: string | null;
  to: string | null;
  channel: string | null;
  reason: string | null;
  address: string;
}

export interface RefusalListQuery {
  filters: RefusalFilters;
  /** From 1, as shown. */
  page: number;
  size: number;
}

export const EMPTY_REFUSAL_FILTERS: RefusalFilters = { from: null, to: null, channel: null, reason: null, address: '' };

function positive(text: string | null, fallback: number): number {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function refusalQueryFromParams(params: URLSearchParams): RefusalListQuery {
  const size = positive(params.get('size'), 50);
  return {
    filters: {
      from: params.get('from'),
      to: params.get('to'),
      channel: params.get('channel'),
      reason: params.get('reason'),
      address: params.get('address') ?? '',
    },
    page: positive(params.get('page'), 1),
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : 50,
  };
}

export function paramsFromRefusalQuery(query: RefusalListQuery): URLSearchParams {
  const params = new URLSearchParams();
  const { filters } = query;
  if (filters.from !== null) params.set('from', filters.from);
  if (filters.to !== null) params.set('to', filters.to);
  if (filters.channel !== null) params.set('channel', filters.channel);
  if (filters.reason !== null) params.set('reason', filters.reason);
  if (filters.address.trim() !== '') params.set('address', filters.address.trim());
  if (query.page > 1) params.set('page', String(query.page));
  if (query.size !== 50) params.set('size', String(query.size));
  return params;
}

export function refusalApiQuery(query: RefusalListQuery): RefusalsQuery {
  const { filters } = query;
  return {
    ...(filters.from === null ? {} : { from: filters.from }),
    ...(filters.to === null ? {} : { to: filters.to }),
    ...(filters.channel === null ? {} : { channelID: filters.channel }),
    ...(filters.reason === null ? {} : { reason: filters.reason }),
    ...(filters.address.trim() === '' ? {} : { address: filters.address.trim() }),
    filterLimit: query.size,
    filterPage: query.page - 1,
  };
}

export function hasRefusalFilters(filters: RefusalFilters): boolean {
  return filters.from !== null || filters.to !== null || filters.channel !== null || filters.reason !== null || filters.address.trim() !== '';
}

/** Why the dates cannot be asked for, or null. */
export function refusalDateProblem(filters: RefusalFilters): string | null {
  if (filters.from === null || filters.to === null) return null;
  return Date.parse(filters.from) > Date.parse(filters.to) ? 'The "To" date is before the "From" date: change one of them.' : null;
}

/** An address the API takes: IPv4, IPv6, or *. */
export function addressProblem(value: string): string | null {
  return /^[0-9A-Za-z.:*_-]*$/.test(value.trim()) ? null : 'An address such as 10.0.0.5 or fe80::1';
}
