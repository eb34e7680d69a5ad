/**
 * How an audit is encoded for storage (the SQLite audit log's rows; engine-neutral enough for any engine that keeps
 * the record as JSON beside indexed columns and a term table): the indexed columns of its event, the terms of its participants and
 * objects (one row per distinct value, so "audits of patient X" reads an index), the codes it adds to the filter
 * options, and the record itself as JSON. Pure functions of the record; the log runs the statements.
 */
import type { AuditCode } from '../contracts/audits.js';
import type { AuditRecord } from './records.js';
import type { AuditCodeField, AuditCodesSeen, AuditPageOptions, NewAudit } from './audits.js';
import { StoreError } from './store.js';

/** The audit log's name in its errors, whichever engine keeps it. */
const AUDITS = 'audits';

/** Which field of a participant or object a term holds. Stored as a small number: it is in every term row. */
export const TERM = {
  userID: 1,
  alternativeUserID: 2,
  networkAccessPointID: 3,
  roleIDCode: 4,
  participantObjectID: 5,
  participantObjectIDTypeCode: 6,
  detailType: 7,
  detailValue: 8,
} as const;

export type TermKind = (typeof TERM)[keyof typeof TERM];

/** The code list of `codesSeen()` each kind of code row belongs to. */
export const CODE_KINDS = ['eventType', 'eventID', 'activeParticipantRoleID', 'participantObjectIDTypeCode', 'auditSourceID'] as const;
export type CodeKind = (typeof CODE_KINDS)[number];

/** The coded fields whose code is an indexed column of the audit row; the others are terms. */
export const CODE_COLUMNS: Partial<Record<AuditCodeField, 'event_id' | 'event_type'>> = { eventID: 'event_id', eventTypeCode: 'event_type' };
export const CODE_TERMS: Partial<Record<AuditCodeField, TermKind>> = { roleIDCode: TERM.roleIDCode, participantObjectIDTypeCode: TERM.participantObjectIDTypeCode };

export interface AuditColumns {
  id: string;
  ts: number;
  event_id: string | null;
  event_type: string | null;
  outcome: string | null;
  action: string | null;
  source: string | null;
  doc: string;
}

export interface CodeRow {
  kind: CodeKind;
  code: string;
  codeSystemName: string | null;
  displayName: string | null;
}

export interface AuditRows {
  columns: AuditColumns;
  /** Distinct (kind, value) pairs, as `kind value` keys are unique. */
  terms: { kind: TermKind; value: string }[];
  codes: CodeRow[];
}

/**
 * An audit encoded before it has an id: everything `auditRows` gives but the id. Pure data of strings and numbers, so
 * it is made in the parse worker and crosses to the main thread as JSON without the record's many objects.
 */
export interface EncodedAudit {
  columns: Omit<AuditColumns, 'id'>;
  /** Distinct (kind, value) pairs, as `kind value` keys are unique. */
  terms: { kind: TermKind; value: string }[];
  codes: CodeRow[];
}

/**
 * The rows of one audit. The JSON holds everything but the id (a column) and keeps the event time as epoch ms (the
 * `ts` column), so reading a record back is one JSON.parse and one Date.
 */
export function auditRows(record: AuditRecord): AuditRows {
  const { _id: id, ...audit } = record;
  const encoded = encodeAudit(audit);
  return { columns: { id, ...encoded.columns }, terms: encoded.terms, codes: encoded.codes };
}

/** Terms an audit may have before their de-duplication switches from a scan to a set. */
const SCAN_TERMS = 32;

/** The rows of an audit that has no id yet. The event time must be a valid Date (the caller checks). */
export function encodeAudit(audit: NewAudit): EncodedAudit {
  const event = audit.eventIdentification;
  const ts = event.eventDateTime.getTime();
  const participants = arrayOf(audit.activeParticipant);
  const objects = arrayOf(audit.participantObjectIdentification);
  const { _id: _ignored, ...rest } = audit as NewAudit & { _id?: unknown };
  const doc = JSON.stringify({ ...rest, eventIdentification: { ...event, eventDateTime: ts } });
  const source = text(audit.auditSourceIdentification?.auditSourceID);
  const columns: EncodedAudit['columns'] = {
    ts,
    event_id: text(event.eventID?.code),
    event_type: text(event.eventTypeCode?.code),
    outcome: text(event.eventOutcomeIndicator),
    action: text(event.eventActionCode),
    source,
    doc,
  };
  const terms: EncodedAudit['terms'] = [];
  // Nearly every audit has a dozen terms or so, where a scan finds a repeat without a key string per term; past
  // SCAN_TERMS a set takes over, so an audit carrying thousands of details costs no quadratic time.
  let seen: Set<string> | null = null;
  const term = (kind: TermKind, value: unknown): void => {
    if (typeof value !== 'string') return;
    if (seen === null) {
      for (const t of terms) if (t.kind === kind && t.value === value) return;
      terms.push({ kind, value });
      if (terms.length >= SCAN_TERMS) seen = new Set(terms.map((t) => `${t.kind} ${t.value}`));
      return;
    }
    const key = `${kind} ${value}`;
    if (seen.has(key)) return;
    seen.add(key);
    terms.push({ kind, value });
  };
  const codes: CodeRow[] = [];
  const code = (kind: CodeKind, value: AuditCode | undefined): void => {
    const c = text(value?.code);
    if (c === null || c === '') return;
    codes.push({ kind, code: c, codeSystemName: text(value?.codeSystemName), displayName: text(value?.displayName) });
  };
  code('eventType', event.eventTypeCode);
  code('eventID', event.eventID);
  if (source !== null && source !== '') codes.push({ kind: 'auditSourceID', code: source, codeSystemName: null, displayName: null });
  for (const p of participants) {
    term(TERM.userID, p.userID);
    term(TERM.alternativeUserID, p.alternativeUserID);
    term(TERM.networkAccessPointID, p.networkAccessPointID);
    term(TERM.roleIDCode, p.roleIDCode?.code);
    code('activeParticipantRoleID', p.roleIDCode);
  }
  for (const o of objects) {
    term(TERM.participantObjectID, o.participantObjectID);
    term(TERM.participantObjectIDTypeCode, o.participantObjectIDTypeCode?.code);
    code('participantObjectIDTypeCode', o.participantObjectIDTypeCode);
    for (const detail of arrayOf(o.participantObjectDetail)) {
      term(TERM.detailType, detail.type);
      term(TERM.detailValue, detail.value);
    }
  }
  return { columns, terms, codes };
}

/** An encoded audit back as the audit it was (for a sink that cannot take it encoded). */
export function decodeEncoded(encoded: EncodedAudit): NewAudit {
  const parsed = JSON.parse(encoded.columns.doc) as NewAudit;
  parsed.eventIdentification.eventDateTime = new Date(encoded.columns.ts);
  return parsed;
}

/** A stored row back as the record it was. */
export function decodeAudit(id: string, ts: number, doc: string): AuditRecord {
  const parsed = JSON.parse(doc) as Omit<AuditRecord, '_id'>;
  parsed.eventIdentification.eventDateTime = new Date(ts);
  return { _id: id, ...parsed };
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function arrayOf<T>(value: readonly T[] | undefined): readonly T[] {
  // A record from elsewhere (an import, an older version) may hold something else where an array belongs.
  return Array.isArray(value) ? (value as readonly T[]) : [];
}

/** A row of the code table as an engine reads it back. */
export interface StoredCodeRow {
  kind: CodeKind;
  code: string;
  code_system_name: string | null;
  display_name: string | null;
}

/** The code table's rows as `codesSeen()` answers them, in the order they were first seen. */
export function codesSeenOf(rows: Iterable<StoredCodeRow>): AuditCodesSeen {
  const seen: AuditCodesSeen = { eventType: [], eventID: [], activeParticipantRoleID: [], participantObjectIDTypeCode: [], auditSourceID: [] };
  for (const row of rows) {
    if (row.kind === 'auditSourceID') seen.auditSourceID.push(row.code);
    else seen[row.kind].push(toCode(row));
  }
  return seen;
}

function toCode(row: StoredCodeRow): AuditCode {
  return {
    code: row.code,
    ...(row.display_name === null ? {} : { displayName: row.display_name }),
    ...(row.code_system_name === null ? {} : { codeSystemName: row.code_system_name }),
  };
}

/** The rows of a record, refusing one that lacks a usable event time. */
export function checkedAuditRows(record: AuditRecord): AuditRows {
  const time = (record.eventIdentification as { eventDateTime?: unknown } | undefined)?.eventDateTime;
  if (!(time instanceof Date) || Number.isNaN(time.getTime())) throw new StoreError(`${AUDITS}: an audit needs eventIdentification.eventDateTime as a valid date`);
  return auditRows(record);
}

/** A page's bounds, refusing what no engine could page by. */
export function auditPageBounds(options: AuditPageOptions): { limit: number; skip: number } {
  const { limit, skip } = options;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreError(`${AUDITS}: limit must be a whole number of 1 or more`);
  if (!Number.isSafeInteger(skip) || skip < 0) throw new StoreError(`${AUDITS}: skip must be a whole number of 0 or more`);
  return { limit, skip };
}
