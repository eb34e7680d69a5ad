/**
 * The public views of audits: the whole record (`GET /audits/:id`, `simpledetails` and `full`, the export), the
 * default list view without participants or raw message, and the filter options with stable ids.
 */
import { createHash } from 'node:crypto';
import type { Audit, AuditCode, AuditFilterOptions, AuditRepresentation, AuditSummary } from '../../contracts/audits.js';
import type { AuditCodesSeen, AuditRecord } from '../../storage/audits.js';

/** A whole audit as answered: its event time as ISO text. */
export function wholeAudit(record: AuditRecord): Audit {
  const { eventIdentification, ...rest } = record;
  return { ...rest, eventIdentification: { ...eventIdentification, eventDateTime: eventIdentification.eventDateTime.toISOString() } };
}

/** The list view of a representation: `default` leaves out the participants and the raw message (OpenHIM's projection). */
export function presentAudit(record: AuditRecord, representation: AuditRepresentation): Audit | AuditSummary {
  const whole = wholeAudit(record);
  if (representation !== 'default') return whole;
  const { activeParticipant: _participants, participantObjectIdentification: _objects, rawMessage: _raw, ...summary } = whole;
  return summary;
}

/** 24 hex digits derived from the text, so an item keeps its id across restarts and instances (OpenHIM's ids are ObjectIds). */
function stableId(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 24);
}

/** The filter options document's id: one document, always the same id. */
export const FILTER_OPTIONS_ID = stableId('audit-filter-options');

function withIds(list: string, codes: readonly AuditCode[]): (AuditCode & { _id: string })[] {
  return codes.map((code) => ({ _id: stableId(`${list}\0${code.code}\0${code.codeSystemName ?? ''}`), ...code }));
}

/** `GET /audits-filter-options`: the codes seen, each with an id derived from its list and code. */
export function filterOptions(seen: AuditCodesSeen): AuditFilterOptions {
  return {
    _id: FILTER_OPTIONS_ID,
    eventType: withIds('eventType', seen.eventType),
    eventID: withIds('eventID', seen.eventID),
    activeParticipantRoleID: withIds('activeParticipantRoleID', seen.activeParticipantRoleID),
    participantObjectIDTypeCode: withIds('participantObjectIDTypeCode', seen.participantObjectIDTypeCode),
    auditSourceID: [...seen.auditSourceID],
  };
}
