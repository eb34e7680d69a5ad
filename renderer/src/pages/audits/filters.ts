/**
 * The audit log's filters and page as URL search parameters (so a view can be shared and survives a reload), and
 * their translation into the `filters` JSON of `GET /audits` in the keys and forms OpenHIM's console sends. Pure.
 *
 * URL keys: from, to (ISO 8601), type (event type code), event (event ID code), user, patient, authority,
 * authorityId, outcome, action, source, page (from 1), size.
 */
import type { AuditApiFilters } from '../../api/audits';

export interface AuditListFilters {
  /** ISO 8601 instants, inclusive. */
  from: string | null;
  to: string | null;
  /** Codes of `eventIdentification.eventTypeCode` and `eventID`. */
  eventType: string | null;
  eventID: string | null;
  /** Any active participant's user ID. */
  user: string;
  /** A patient's ID, and the optional assigning authority (name and universal ID) of the CX form `id^^^name&uid&type`. */
  patient: string;
  authority: string;
  authorityId: string;
  outcome: string | null;
  action: string | null;
  source: string | null;
}

export interface AuditListQuery {
  filters: AuditListFilters;
  /** From 1. */
  page: number;
  size: number;
}

export const PAGE_SIZES = [20, 50, 100] as const;
export const DEFAULT_SIZE = 20;

export const EMPTY_AUDIT_FILTERS: AuditListFilters = {
  from: null,
  to: null,
  eventType: null,
  eventID: null,
  user: '',
  patient: '',
  authority: '',
  authorityId: '',
  outcome: null,
  action: null,
  source: null,
};

/** RFC 3881 EventOutcomeIndicator values in words. */
export const OUTCOMES: Record<string, string> = { '0': 'Success', '4': 'Minor failure', '8': 'Serious failure', '12': 'Major failure' };
/** RFC 3881 EventActionCode values in words. */
export const ACTIONS: Record<string, string> = { C: 'Create', R: 'Read', U: 'Update', D: 'Delete', E: 'Execute' };

function isoOrNull(value: string | null): string | null {
  if (value === null || value === '') return null;
  return Number.isNaN(new Date(value).getTime()) ? null : value;
}

function nonEmpty(value: string | null): string | null {
  return value === null || value.trim() === '' ? null : value;
}

function oneOf(value: string | null, allowed: Record<string, string>): string | null {
  return value !== null && Object.hasOwn(allowed, value) ? value : null;
}

/** The filters and page a URL describes; unknown or malformed values are ignored. */
export function auditQueryFromParams(params: URLSearchParams): AuditListQuery {
  const page = Number(params.get('page') ?? '1');
  const size = Number(params.get('size') ?? String(DEFAULT_SIZE));
  return {
    filters: {
      from: isoOrNull(params.get('from')),
      to: isoOrNull(params.get('to')),
      eventType: nonEmpty(params.get('type')),
      eventID: nonEmpty(params.get('event')),
      user: params.get('user') ?? '',
      patient: params.get('patient') ?? '',
      authority: params.get('authority') ?? '',
      authorityId: params.get('authorityId') ?? '',
      outcome: oneOf(params.get('outcome'), OUTCOMES),
      action: oneOf(params.get('action'), ACTIONS),
      source: nonEmpty(params.get('source')),
    },
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_SIZE,
  };
}

/** The URL parameters of a query; empty filters and defaults are left out so plain views keep plain URLs. */
export function paramsFromAuditQuery(query: AuditListQuery): URLSearchParams {
  const params = new URLSearchParams();
  const f = query.filters;
  const pairs: [string, string | null][] = [
    ['from', f.from],
    ['to', f.to],
    ['type', f.eventType],
    ['event', f.eventID],
    ['user', f.user],
    ['patient', f.patient],
    ['authority', f.authority],
    ['authorityId', f.authorityId],
    ['outcome', f.outcome],
    ['action', f.action],
    ['source', f.source],
  ];
  for (const [key, value] of pairs) if (value !== null && value !== '') params.set(key, value);
  if (query.page !== 1) params.set('page', String(query.page));
  if (query.size !== DEFAULT_SIZE) params.set('size', String(query.size));
  return params;
}

/** Why a patient ID cannot be searched for (OpenHIM allows letters, digits, _ and - only), or null. */
export function patientIdProblem(value: string): string | null {
  return /^[\w-]*$/.test(value.trim()) ? null : 'Special characters (except for hyphens(-)) not allowed in PatientID filter field';
}

/** Why an assigning authority part cannot be used (it ends at `&` or `^`, the CX separators), or null. */
export function authorityProblem(value: string): string | null {
  return /[&^]/.test(value) ? 'Leave out & and ^: they separate the parts of the ID' : null;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The regular expression OpenHIM's console sends for a patient ID: `<id>\^\^\^<authority>&<authority ID>&.*`, with
 * `.*` for a part left empty. Unlike OpenHIM's console, the authority parts are matched literally (an OID's dots are
 * not wildcards).
 */
export function patientIdPattern(patient: string, authority: string, authorityId: string): string {
  const part = (text: string) => (text.trim() === '' ? '.*' : escapeRegex(text.trim()));
  return `${patient.trim()}\\^\\^\\^${part(authority)}&${part(authorityId)}&.*`;
}

/** The API's `filters` for the list and the export (`{}` when nothing is set). */
export function auditApiFilters(filters: AuditListFilters): AuditApiFilters {
  const out: AuditApiFilters = {};
  if (filters.from !== null || filters.to !== null) {
    out['eventIdentification.eventDateTime'] = JSON.stringify({
      ...(filters.from === null ? {} : { $gte: filters.from }),
      ...(filters.to === null ? {} : { $lte: filters.to }),
    });
  }
  if (filters.eventType !== null) out['eventIdentification.eventTypeCode.code'] = filters.eventType;
  if (filters.eventID !== null) out['eventIdentification.eventID.code'] = filters.eventID;
  if (filters.user.trim() !== '') out['activeParticipant.userID'] = filters.user.trim();
  if (filters.patient.trim() !== '' && patientIdProblem(filters.patient) === null && authorityProblem(filters.authority) === null && authorityProblem(filters.authorityId) === null) {
    out['participantObjectIdentification.participantObjectID'] = JSON.stringify(patientIdPattern(filters.patient, filters.authority, filters.authorityId));
  }
  if (filters.outcome !== null) out['eventIdentification.eventOutcomeIndicator'] = filters.outcome;
  if (filters.action !== null) out['eventIdentification.eventActionCode'] = filters.action;
  if (filters.source !== null) out['auditSourceIdentification.auditSourceID'] = filters.source;
  return out;
}

/** Why the date range cannot be used, or null. */
export function auditDateOrderProblem(filters: AuditListFilters): string | null {
  if (filters.from === null || filters.to === null) return null;
  return new Date(filters.from) > new Date(filters.to) ? 'Choose a From time before the To time.' : null;
}

/** True when any filter is set. */
export function hasAuditFilters(filters: AuditListFilters): boolean {
  return Object.keys(auditApiFilters(filters)).length > 0;
}
