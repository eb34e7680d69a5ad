/**
 * Request and response schemas of the audits routes (OpenHIM's query names). `filters` is checked by
 * domain/operations/audit-filters.ts. `POST /audits` takes an audit in the model's shape (contracts/audits.ts): every text field a
 * string, every list an array, unknown fields refused with a 400 naming them (OpenHIM's Mongoose schema drops them
 * silently, so a misspelt field would be lost without a word).
 */
import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';
import { MAX_AUDIT_PAGE } from '../../domain/operations/audit-filters.js';

const strict = { additionalProperties: false };
const Text = (maxLength = 1000) => Type.Optional(Type.String({ maxLength }));
const Filters = Type.String({ maxLength: 10_000, description: 'a JSON object of OpenHIM audit filters' });

// ---- requests ----

const CodeInput = Type.Object({ code: Type.String({ minLength: 1, maxLength: 200 }), displayName: Text(), codeSystemName: Text(200) }, strict);

const SyslogInput = Type.Object(
  {
    prival: Type.Optional(Type.Integer({ minimum: 0, maximum: 191 })),
    facilityID: Type.Optional(Type.Integer({ minimum: 0, maximum: 23 })),
    severityID: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })),
    facility: Text(20),
    severity: Text(20),
    type: Type.Optional(Type.Enum(['RFC5424', 'RFC3164'])),
    time: Text(64),
    host: Text(255),
    appName: Text(255),
    pid: Text(128),
    msgID: Text(255),
  },
  strict,
);

const EventIdentificationInput = Type.Object(
  {
    eventDateTime: Type.String({ format: 'date-time', maxLength: 40 }),
    eventOutcomeIndicator: Text(10),
    eventActionCode: Text(10),
    eventID: CodeInput,
    eventTypeCode: Type.Optional(CodeInput),
  },
  strict,
);

const ActiveParticipantInput = Type.Object(
  {
    userID: Text(),
    alternativeUserID: Text(),
    userName: Text(),
    userIsRequestor: Text(10),
    networkAccessPointID: Text(),
    networkAccessPointTypeCode: Text(10),
    roleIDCode: Type.Optional(CodeInput),
  },
  strict,
);

const SourceInput = Type.Object({ auditSourceID: Text(), auditEnterpriseSiteID: Text(), auditSourceTypeCode: Type.Optional(CodeInput) }, strict);

const DetailInput = Type.Object({ type: Type.String({ maxLength: 1000 }), value: Type.String({ maxLength: 100_000 }) }, strict);

const ParticipantObjectInput = Type.Object(
  {
    participantObjectID: Text(),
    participantObjectTypeCode: Text(10),
    participantObjectTypeCodeRole: Text(10),
    participantObjectIDTypeCode: Type.Optional(CodeInput),
    participantObjectName: Text(),
    participantObjectQuery: Text(100_000),
    participantObjectDetail: Type.Optional(Type.Array(DetailInput, { maxItems: 100 })),
  },
  strict,
);

/** `POST /audits`: one audit in the model's shape; `eventIdentification` with its time and event ID is required. */
export const AuditCreateBody = Type.Object(
  {
    rawMessage: Text(1024 * 1024),
    syslog: Type.Optional(SyslogInput),
    eventIdentification: EventIdentificationInput,
    activeParticipant: Type.Optional(Type.Array(ActiveParticipantInput, { maxItems: 100 })),
    auditSourceIdentification: Type.Optional(SourceInput),
    participantObjectIdentification: Type.Optional(Type.Array(ParticipantObjectInput, { maxItems: 1000 })),
  },
  strict,
);
export type AuditCreateBody = Static<typeof AuditCreateBody>;

export const Representation = Type.Enum(['default', 'simpledetails', 'full'], {
  description: 'default leaves out the participants and the raw message; simpledetails and full answer whole records',
});

export const AuditListQuery = Type.Object(
  {
    // No maximum here: domain/operations/audit-filters.ts refuses a larger page with a message that points at the export.
    filterLimit: Type.Optional(Type.Integer({ minimum: 0, description: `audits per page, at most ${MAX_AUDIT_PAGE}; 0 is ${MAX_AUDIT_PAGE}` })),
    filterPage: Type.Optional(Type.Integer({ minimum: 0, maximum: Math.floor(Number.MAX_SAFE_INTEGER / MAX_AUDIT_PAGE), description: 'the page, counted from 0' })),
    filterRepresentation: Type.Optional(Representation),
    filters: Type.Optional(Filters),
  },
  strict,
);
export type AuditListQuery = Static<typeof AuditListQuery>;

export const AuditExportQuery = Type.Object({ filters: Type.Optional(Filters) }, strict);
export type AuditExportQuery = Static<typeof AuditExportQuery>;

export const AuditParams = Type.Object({ auditId: Type.String({ minLength: 1, maxLength: 64 }) }, strict);

// ---- answers ----

const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const Code = Type.Object({ code: Type.String(), displayName: Opt(Type.String()), codeSystemName: Opt(Type.String()) });
const SyslogView = Type.Object({
  prival: Opt(Type.Number()),
  facilityID: Opt(Type.Number()),
  severityID: Opt(Type.Number()),
  facility: Opt(Type.String()),
  severity: Opt(Type.String()),
  type: Opt(Type.Enum(['RFC5424', 'RFC3164'])),
  time: Opt(Type.String()),
  host: Opt(Type.String()),
  appName: Opt(Type.String()),
  pid: Opt(Type.String()),
  msgID: Opt(Type.String()),
});
const EventIdentificationView = Type.Object({
  eventDateTime: Type.String(),
  eventOutcomeIndicator: Opt(Type.String()),
  eventActionCode: Opt(Type.String()),
  eventID: Opt(Code),
  eventTypeCode: Opt(Code),
});
const ActiveParticipantView = Type.Object({
  userID: Opt(Type.String()),
  alternativeUserID: Opt(Type.String()),
  userName: Opt(Type.String()),
  userIsRequestor: Opt(Type.String()),
  networkAccessPointID: Opt(Type.String()),
  networkAccessPointTypeCode: Opt(Type.String()),
  roleIDCode: Opt(Code),
});
const SourceView = Type.Object({ auditSourceID: Opt(Type.String()), auditEnterpriseSiteID: Opt(Type.String()), auditSourceTypeCode: Opt(Code) });
const ParticipantObjectView = Type.Object({
  participantObjectID: Opt(Type.String()),
  participantObjectTypeCode: Opt(Type.String()),
  participantObjectTypeCodeRole: Opt(Type.String()),
  participantObjectIDTypeCode: Opt(Code),
  participantObjectName: Opt(Type.String()),
  participantObjectQuery: Opt(Type.String()),
  participantObjectDetail: Opt(Type.Array(Type.Object({ type: Type.String(), value: Type.String() }))),
});

const summaryFields = {
  _id: Type.String(),
  syslog: Opt(SyslogView),
  eventIdentification: EventIdentificationView,
  auditSourceIdentification: Opt(SourceView),
};

/** A whole audit (contracts/audits.ts Audit). */
export const AuditSchema = Type.Object({
  ...summaryFields,
  rawMessage: Opt(Type.String()),
  activeParticipant: Type.Array(ActiveParticipantView),
  participantObjectIdentification: Type.Array(ParticipantObjectView),
});

/** An audit in the default list view: no participants and no raw message (contracts/audits.ts AuditSummary). */
export const AuditSummarySchema = Type.Object(summaryFields);

/** `GET /audits`: summaries (default) or whole audits; told apart by the participants, which whole audits always have. */
export const AuditListAnswer = Type.Array(Type.Unsafe<Static<typeof AuditSchema> | Static<typeof AuditSummarySchema>>({ if: { type: 'object', required: ['activeParticipant'] }, then: AuditSchema, else: AuditSummarySchema }));

const OptionCode = Type.Object({ _id: Type.String(), code: Type.String(), displayName: Opt(Type.String()), codeSystemName: Opt(Type.String()) });

/** `GET /audits-filter-options` (contracts/audits.ts AuditFilterOptions). */
export const AuditFilterOptionsSchema = Type.Object({
  _id: Type.String(),
  eventType: Type.Array(OptionCode),
  eventID: Type.Array(OptionCode),
  activeParticipantRoleID: Type.Array(OptionCode),
  participantObjectIDTypeCode: Type.Array(OptionCode),
  auditSourceID: Type.Array(Type.String()),
});
