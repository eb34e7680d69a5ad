/**
 * An audit filter as SQL over the audit log's tables (audit-log.ts), plus what SQL cannot check (patterns, and the
 * names of codes) as a JavaScript test of each candidate record.
 *
 * One index drives each query, in newest-first order, so a page stops after the rows it returns: the first exact
 * participant or object term (a user, a patient: usually few rows), else a participant object ID prefix of
 * PREFIX_DRIVES characters or more (its candidates are sorted), else an indexed event column, else the time index.
 * Every other condition is checked on the rows the driver gives (`+column` keeps SQLite from choosing a second
 * index; terms are point lookups in their primary key).
 */
import { StoreError } from '../store.js';
import { cachedPattern } from '../../domain/safe-pattern.js';
import type { AuditCodeField, AuditCodeMatch, AuditFilter, AuditObjectIdMatch } from '../audits.js';
import type { AuditRecord } from '../records.js';
import { CODE_COLUMNS, CODE_TERMS, TERM } from '../audit-rows.js';
import type { TermKind } from '../audit-rows.js';
import type { SqlValue } from './where.js';

/** Shorter participant object ID prefixes match too many terms to sort; they are checked on time-ordered rows. */
export const PREFIX_DRIVES = 3;
/** The greatest code point: every string that starts with a prefix sorts below prefix + this (UTF-8 byte order). */
const TOP = '\u{10FFFF}';

/** Terms in the order they drive a query: the likeliest to be rare first. */
const TERM_FIELDS: readonly ['userID' | 'alternativeUserID' | 'participantObjectDetailValue' | 'networkAccessPointID' | 'participantObjectDetailType', TermKind][] = [
  ['userID', TERM.userID],
  ['alternativeUserID', TERM.alternativeUserID],
  ['participantObjectDetailValue', TERM.detailValue],
  ['networkAccessPointID', TERM.networkAccessPointID],
  ['participantObjectDetailType', TERM.detailType],
];

/** Event columns in the order they drive a query. */
const COLUMN_FIELDS: readonly ['eventActionCode' | 'eventOutcomeIndicator' | 'auditSourceID', string][] = [
  ['auditSourceID', 'source'],
  ['eventActionCode', 'action'],
  ['eventOutcomeIndicator', 'outcome'],
];

const CODE_FIELDS = new Set<AuditCodeField>(['eventID', 'eventTypeCode', 'roleIDCode', 'participantObjectIDTypeCode']);

export interface AuditQuery {
  /** The FROM clause: `audits a`, or a term source `t` joined to it. */
  from: string;
  fromParams: SqlValue[];
  /** The driving index's time and id columns, which the order and the keyset use. */
  ts: string;
  id: string;
  where: string[];
  params: SqlValue[];
  /** What SQL did not check; null when SQL checks everything. */
  check: ((record: AuditRecord) => boolean) | null;
}

/** The query of a filter; throws a StoreError naming a malformed condition. */
export function auditQuery(filter: AuditFilter): AuditQuery {
  const exact: { kind: TermKind; value: string }[] = [];
  for (const [field, kind] of TERM_FIELDS) {
    const value = filter[field];
    if (value !== undefined) exact.push({ kind, value: textOf(field, value) });
  }
  const columns: { column: string; value: string }[] = [];
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

  const query: AuditQuery = { from: 'audits a', fromParams: [], ts: 'a.ts', id: 'a.id', where: [], params: [], check: null };
  const driving = exact.shift();
  const prefixDriver = driving === undefined ? objectIds.find((m) => m.prefix.length >= PREFIX_DRIVES) : undefined;
  if (driving !== undefined) {
    query.from = 'audit_terms t CROSS JOIN audits a ON a.id = t.id';
    query.ts = 't.ts';
    query.id = 't.id';
    query.where.push('t.kind = ?', 't.value = ?');
    query.params.push(driving.kind, driving.value);
  } else if (prefixDriver !== undefined) {
    const range = timeRange('ts', from, to);
    query.from = `(SELECT DISTINCT ts, id FROM audit_terms WHERE kind = ? AND value >= ? AND value < ?${range.sql}) t CROSS JOIN audits a ON a.id = t.id`;
    query.fromParams.push(TERM.participantObjectID, prefixDriver.prefix, prefixDriver.prefix + TOP, ...range.params);
    query.ts = 't.ts';
    query.id = 't.id';
  }
  const range = timeRange(query.ts, from, to);
  if (range.sql !== '') {
    query.where.push(range.sql.slice(' AND '.length));
    query.params.push(...range.params);
  }
  columns.forEach(({ column, value }, i) => {
    // The first drives when no term does; every other one is checked on the driver's rows.
    const drives = i === 0 && query.from === 'audits a';
    query.where.push(`${drives ? '' : '+'}a.${column} = ?`);
    query.params.push(value);
  });
  for (const term of exact) {
    query.where.push('EXISTS (SELECT 1 FROM audit_terms x WHERE x.kind = ? AND x.value = ? AND x.ts = a.ts AND x.id = a.id)');
    query.params.push(term.kind, term.value);
  }
  for (const match of objectIds) {
    // The driving prefix is exact in SQL; its pattern, and every other match, are checked on the records.
    if (match === prefixDriver && match.pattern === undefined) continue;
    checks.push(objectIdCheck(match));
  }
  if (checks.length > 0) query.check = (record) => checks.every((check) => check(record));
  return query;
}

/** The statement of a query, newest first, without its LIMIT; `extra` adds conditions (the keyset). */
export function auditSelect(query: AuditQuery, extra = ''): string {
  const where = query.where.length === 0 ? '1' : query.where.join(' AND ');
  return `SELECT a.id AS id, a.ts AS ts, a.doc AS doc FROM ${query.from} WHERE ${where}${extra} ORDER BY ${query.ts} DESC, ${query.id} DESC`;
}

/** `AND column >= ? AND column <= ?` for the bounds given (inclusive), or nothing. */
function timeRange(column: string, from: number | null, to: number | null): { sql: string; params: number[] } {
  let sql = '';
  const params: number[] = [];
  if (from !== null) {
    sql += ` AND ${column} >= ?`;
    params.push(from);
  }
  if (to !== null) {
    sql += ` AND ${column} <= ?`;
    params.push(to);
  }
  return { sql, params };
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
