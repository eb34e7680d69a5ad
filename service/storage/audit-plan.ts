/**
 * An audit filter as an engine-neutral plan over the audit rows of audit-rows.ts (an audit row with indexed event
 * columns, a term table keyed by kind, value, time and id): which index drives the query, what else SQL checks, and
 * what SQL cannot check (patterns, the names of codes) as a JavaScript test of each candidate record. Each engine
 * writes the plan in its own SQL (sqlite/audit-query.ts, postgres/audit-query.ts), so both answer a filter alike.
 *
 * One index drives each query, in newest-first order, so a page stops after the rows it returns: the first exact
 * participant or object term (a user, a patient: usually few rows), else a participant object ID prefix of
 * PREFIX_DRIVES characters or more (its candidates are sorted), else an indexed event column, else the time index.
 */
import { StoreError } from './store.js';
import { cachedPattern } from '../domain/util/safe-pattern.js';
import type { AuditCodeField, AuditCodeMatch, AuditFilter, AuditObjectIdMatch } from './audits.js';
import type { AuditRecord } from './records.js';
import { CODE_COLUMNS, CODE_TERMS, TERM } from './audit-rows.js';
import type { TermKind } from './audit-rows.js';

/** Shorter participant object ID prefixes match too many terms to sort; they are checked on time-ordered rows. */
export const PREFIX_DRIVES = 3;
/** The greatest code point: every string that starts with a prefix sorts below prefix + this (UTF-8 byte order). */
export const TOP = '\u{10FFFF}';

/** Terms in the order they drive a query: the likeliest to be rare first. */
const TERM_FIELDS: readonly ['userID' | 'alternativeUserID' | 'participantObjectDetailValue' | 'networkAccessPointID' | 'participantObjectDetailType', TermKind][] = [
  ['userID', TERM.userID],
  ['alternativeUserID', TERM.alternativeUserID],
  ['participantObjectDetailValue', TERM.detailValue],
  ['networkAccessPointID', TERM.networkAccessPointID],
  ['participantObjectDetailType', TERM.detailType],
];

/** Event columns in the order they drive a query. */
const COLUMN_FIELDS: readonly ['eventActionCode' | 'eventOutcomeIndicator' | 'auditSourceID', AuditColumn][] = [
  ['auditSourceID', 'source'],
  ['eventActionCode', 'action'],
  ['eventOutcomeIndicator', 'outcome'],
];

const CODE_FIELDS = new Set<AuditCodeField>(['eventID', 'eventTypeCode', 'roleIDCode', 'participantObjectIDTypeCode']);

/** The indexed event columns of the audit row a filter can compare. */
export type AuditColumn = 'event_id' | 'event_type' | 'outcome' | 'action' | 'source';

/** The index that drives a query. */
export type AuditDriver =
  | { by: 'term'; kind: TermKind; value: string }
  | { by: 'prefix'; prefix: string }
  /** The audit row's own indexes: the first column condition's, else the time index. */
  | { by: 'audits' };

export interface AuditPlan {
  driver: AuditDriver;
  /** Inclusive bounds on the event time, epoch ms. */
  from: number | null;
  to: number | null;
  /** Equalities on event columns, the most selective first (the first drives when the driver is `audits`). */
  columns: { column: AuditColumn; value: string }[];
  /** Further exact terms every matching audit has. */
  terms: { kind: TermKind; value: string }[];
  /** What SQL does not check; null when SQL checks everything. */
  check: ((record: AuditRecord) => boolean) | null;
}

/** The plan of a filter; throws a StoreError naming a malformed condition. */
export function auditPlan(filter: AuditFilter): AuditPlan {
  const exact: { kind: TermKind; value: string }[] = [];
  for (const [field, kind] of TERM_FIELDS) {
    const value = filter[field];
    if (value !== undefined) exact.push({ kind, value: textOf(field, value) });
  }
  const columns: { column: AuditColumn; value: string }[] = [];
  const checks: ((record: AuditRecord) => boolean)[] = [];
  for (const match of filter.codes ?? []) {
    if (!CODE_FIELDS.has(match.field)) throw new StoreError(`audits: cannot filter on the code of ${String(match.field)}`);
    const parts = (['code', 'codeSystemName', 'displayName'] as const).filter((part) => match[part] !== undefined);
    if (parts.length === 0) throw new StoreError(`audits: a filter on ${match.field} names no part of the code`);
    for (const part of parts) textOf(`${match.field}.${part}`, match[part]);
    if (match.code !== undefined) {
      const column = CODE_COLUMNS[match.field];
      const term = CODE_TERMS[match.field];
      if (column !== undefined) columns.push({ column, value: match.code });
      else if (term !== undefined) exact.push({ kind: term, value: match.code });
    }
    if (match.codeSystemName !== undefined || match.displayName !== undefined) checks.push(codeCheck(match));
  }
  // Most selective first: an event ID or type, then the source, the action and the outcome.
  for (const [field, column] of COLUMN_FIELDS) {
    const value = filter[field];
    if (value !== undefined) columns.push({ column, value: textOf(field, value) });
  }
  const objectIds = (filter.participantObjectID ?? []).map((match) => checkedObjectId(match));
  const from = timeOf('from', filter.from);
  const to = timeOf('to', filter.to);

  const driving = exact.shift();
  const prefixDriver = driving === undefined ? objectIds.find((m) => m.prefix.length >= PREFIX_DRIVES) : undefined;
  const driver: AuditDriver =
    driving !== undefined ? { by: 'term', ...driving } : prefixDriver !== undefined ? { by: 'prefix', prefix: prefixDriver.prefix } : { by: 'audits' };
  for (const match of objectIds) {
    // The driving prefix is exact in SQL; its pattern, and every other match, are checked on the records.
    if (match === prefixDriver && match.pattern === undefined) continue;
    checks.push(objectIdCheck(match));
  }
  const check = checks.length === 0 ? null : (record: AuditRecord) => checks.every((c) => c(record));
  return { driver, from, to, columns, terms: exact, check };
}

function codeCheck(match: AuditCodeMatch): (record: AuditRecord) => boolean {
  const parts = (['codeSystemName', 'displayName'] as const).filter((part) => match[part] !== undefined);
  // Each part on its own, as OpenHIM's queries on arrays hold when any element has the value.
  return (record) => parts.every((part) => codesOf(record, match.field).some((code) => code?.[part] === match[part]));
}

function codesOf(record: AuditRecord, field: AuditCodeField): readonly ({ codeSystemName?: string; displayName?: string } | undefined)[] {
  switch (field) {
    case 'eventID':
      return [record.eventIdentification.eventID];
    case 'eventTypeCode':
      return [record.eventIdentification.eventTypeCode];
    case 'roleIDCode':
      return arrayOf(record.activeParticipant).map((p) => p.roleIDCode);
    case 'participantObjectIDTypeCode':
      return arrayOf(record.participantObjectIdentification).map((o) => o.participantObjectIDTypeCode);
  }
}

function objectIdCheck(match: AuditObjectIdMatch): (record: AuditRecord) => boolean {
  const compiled = match.pattern === undefined ? null : cachedPattern(match.pattern);
  // A refused pattern matches nothing, as the transaction log's do.
  if (compiled !== null && !compiled.ok) return () => false;
  const pattern = compiled?.pattern ?? null;
  return (record) =>
    arrayOf(record.participantObjectIdentification).some((object) => {
      const id = object.participantObjectID;
      return typeof id === 'string' && id.startsWith(match.prefix) && (pattern === null || pattern.test(id));
    });
}

function checkedObjectId(match: AuditObjectIdMatch): AuditObjectIdMatch {
  textOf('participantObjectID.prefix', match.prefix);
  if (match.pattern !== undefined) textOf('participantObjectID.pattern', match.pattern);
  return match;
}

function textOf(field: string, value: unknown): string {
  if (typeof value !== 'string') throw new StoreError(`audits: the filter on ${field} must be text`);
  return value;
}

function timeOf(field: string, value: unknown): number | null {
  if (value === undefined) return null;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new StoreError(`audits: the filter's ${field} must be a date`);
  return value.getTime();
}

function arrayOf<T>(value: readonly T[] | undefined): readonly T[] {
  // A record from elsewhere (an import, an older version) may hold something else where an array belongs.
  return Array.isArray(value) ? (value as readonly T[]) : [];
}
