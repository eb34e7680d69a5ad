/**
 * The audit log: the ATNA audit repository's records, a time series like the transaction log. Received messages,
 * audits posted through the API and Junction's own audit events all land here. Engines keep the fields the console
 * filters on as indexed columns beside the whole record, so a filtered page reads only what it returns, and keep the
 * distinct codes seen for `GET /audits-filter-options` as records are added (never by scanning).
 */
import type { EncodedAudit } from './audit-rows.js';
import type { AuditCode, AuditEventIdentification } from '../contracts/audits.js';
import type { AuditCodeField, AuditCodeMatch, AuditFilter, AuditObjectIdMatch } from '../domain/operations/audit-filters.js';
import type { AuditRecord } from './records.js';

export type { AuditRecord };

/** An audit as it is added: everything but the id the log assigns. */
export type NewAudit = Omit<AuditRecord, '_id'>;

// What a query may filter on is decided with the rules that read the API's filters (domain/operations/audit-filters.ts).
export type { AuditCodeField, AuditCodeMatch, AuditFilter, AuditObjectIdMatch };

export interface AuditPageOptions {
  skip: number;
  /** Most records answered; at least 1. */
  limit: number;
}

/** The distinct values seen, as `GET /audits-filter-options` lists them (the API adds the ids). */
export interface AuditCodesSeen {
  eventType: AuditCode[];
  eventID: AuditCode[];
  activeParticipantRoleID: AuditCode[];
  participantObjectIDTypeCode: AuditCode[];
  auditSourceID: string[];
}

export interface AuditLog {
  /** Opens (or creates) the log's files; safe to call twice. */
  open(): Promise<void>;
  /** Stores one audit and returns it with its id (24 hex digits, as OpenHIM's ids). Resolves once it is durable. */
  add(audit: NewAudit): Promise<AuditRecord>;
  /** Stores an audit already encoded by `encodeAudit` (in the parse worker), under a new id; resolves with the id. */
  addEncoded(encoded: EncodedAudit): Promise<string>;
  /** Stores an audit under the id it already has (an import); false when an audit with that id is already stored. */
  restore(audit: AuditRecord): Promise<boolean>;
  get(id: string): Promise<AuditRecord | null>;
  /** Matching audits, newest `eventDateTime` first (ties by id, newest first). */
  page(filter: AuditFilter, options: AuditPageOptions): Promise<AuditRecord[]>;
  /** Every matching audit, newest first, read in batches so a large export never sits in memory. */
  stream(filter: AuditFilter): AsyncIterable<AuditRecord>;
  codesSeen(): Promise<AuditCodesSeen>;
  /** Deletes up to `limit` audits whose `eventDateTime` is before `cutoff`, oldest first; returns how many. */
  dropBefore(cutoff: Date, limit: number): Promise<number>;
  close(): Promise<void>;
}

/** Where an audit event goes: the audit log itself, or a sender that forwards it to another repository. */
export interface AuditSink {
  add(audit: NewAudit): Promise<unknown>;
  /** Stores an audit encoded elsewhere (the parse worker, `encodeAudit`), when the sink can take it so. */
  addEncoded?(encoded: EncodedAudit): Promise<unknown>;
}

export type { AuditEventIdentification };
