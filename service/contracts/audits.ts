/**
 * The ATNA audit repository's records (issue 17), in OpenHIM's audit model: what `GET /audits` and `GET /audits/:id`
 * answer and `POST /audits` accepts. Every value OpenHIM keeps as text stays text (`userIsRequestor` is `'true'`,
 * codes are strings), so records read the same whichever sender wrote them. Import with `import type`.
 */

/** A coded value (RFC 3881 CodedValueType; DICOM's `csd-code` and `originalText` arrive as `code` and `displayName`). */
export interface AuditCode {
  code: string;
  displayName?: string;
  codeSystemName?: string;
}

/** The syslog header of a received message (RFC 5424 or RFC 3164), as OpenHIM names its fields. */
export interface AuditSyslog {
  prival?: number;
  facilityID?: number;
  severityID?: number;
  /** Names of the facility and severity (`sec`, `notice`). */
  facility?: string;
  severity?: string;
  type?: 'RFC5424' | 'RFC3164';
  /** ISO 8601. */
  time?: string;
  host?: string;
  appName?: string;
  pid?: string;
  msgID?: string;
}

export interface AuditEventIdentification {
  /** ISO 8601; the time the event happened (now, for a message that carried none). */
  eventDateTime: string;
  /** 0 success, 4 minor failure, 8 serious failure, 12 major failure. */
  eventOutcomeIndicator?: string;
  /** C, R, U, D or E. */
  eventActionCode?: string;
  eventID?: AuditCode;
  eventTypeCode?: AuditCode;
}

export interface AuditActiveParticipant {
  userID?: string;
  alternativeUserID?: string;
  userName?: string;
  /** `'true'` or `'false'`. */
  userIsRequestor?: string;
  networkAccessPointID?: string;
  /** 1 machine name, 2 IP address, 3 telephone number, 4 email, 5 URI. */
  networkAccessPointTypeCode?: string;
  roleIDCode?: AuditCode;
}

export interface AuditSourceIdentification {
  auditSourceID?: string;
  auditEnterpriseSiteID?: string;
  auditSourceTypeCode?: AuditCode;
}

export interface AuditParticipantObject {
  participantObjectID?: string;
  participantObjectTypeCode?: string;
  participantObjectTypeCodeRole?: string;
  participantObjectIDTypeCode?: AuditCode;
  participantObjectName?: string;
  /** Base64 of the query, as RFC 3881 carries it. */
  participantObjectQuery?: string;
  participantObjectDetail?: { type: string; value: string }[];
}

/** One stored audit message. A message that did not parse as an audit has only `rawMessage`, `syslog` (when its header parsed) and `eventIdentification.eventDateTime`. */
export interface Audit {
  _id: string;
  /** The whole message as received, syslog header included (absent for audits posted as JSON). */
  rawMessage?: string;
  syslog?: AuditSyslog;
  eventIdentification: AuditEventIdentification;
  activeParticipant: AuditActiveParticipant[];
  auditSourceIdentification?: AuditSourceIdentification;
  participantObjectIdentification: AuditParticipantObject[];
}

/** `GET /audits-filter-options`: the distinct values seen, for the console's filter lists (OpenHIM's `auditMeta`). */
export interface AuditFilterOptions {
  _id: string;
  eventType: (AuditCode & { _id: string })[];
  eventID: (AuditCode & { _id: string })[];
  activeParticipantRoleID: (AuditCode & { _id: string })[];
  participantObjectIDTypeCode: (AuditCode & { _id: string })[];
  auditSourceID: string[];
}

/**
 * `GET /audits?filterRepresentation=`: the default hides the participants and the raw message (the list view);
 * `simpledetails` and `full` answer whole records.
 */
export type AuditRepresentation = 'default' | 'simpledetails' | 'full';

/** An audit in `GET /audits`'s default representation: the participants and the raw message left out. */
export type AuditSummary = Omit<Audit, 'activeParticipant' | 'participantObjectIdentification' | 'rawMessage'>;
