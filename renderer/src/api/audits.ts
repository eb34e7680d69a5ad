/** Typed calls of the audit log: a page of audits, one audit, the filter lists, and the streamed export. */
import type { Audit, AuditFilterOptions } from '../../../service/contracts/audits';
import { api, seg } from './client';

/** The `filters` object of `GET /audits` and `GET /audits/export`: OpenHIM's keys, each value as its console sends it. */
export type AuditApiFilters = Record<string, string>;

/** The `filters` query parameter: absent when nothing is filtered. */
export function filtersParam(filters: AuditApiFilters): string | undefined {
  return Object.keys(filters).length === 0 ? undefined : JSON.stringify(filters);
}

/**
 * One page of audits, newest first (`page` from 0), whole records: the list shows participants and objects, which
 * the default representation leaves out.
 */
export function listAudits(filters: AuditApiFilters, page: number, limit: number, signal?: AbortSignal): Promise<Audit[]> {
  return api.get<Audit[]>('/audits', { filterPage: page, filterLimit: limit, filterRepresentation: 'simpledetails', filters: filtersParam(filters) }, signal);
}

/** One audit with its raw message. */
export function getAudit(id: string, signal?: AbortSignal): Promise<Audit> {
  return api.get<Audit>(`/audits/${seg(id)}`, undefined, signal);
}

/** The codes and sources seen so far, for the filter lists; null before any audit was stored (as OpenHIM answers). */
export function getAuditFilterOptions(signal?: AbortSignal): Promise<AuditFilterOptions | null> {
  return api.get<AuditFilterOptions | null>('/audits-filter-options', undefined, signal);
}

/** Starts the streamed export of every audit the filters match; the caller reads the body. */
export function startAuditExport(filters: AuditApiFilters, signal: AbortSignal): Promise<Response> {
  return api.fetch('/audits/export', { query: { filters: filtersParam(filters) }, signal });
}
