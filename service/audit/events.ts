/** Builders for the RFC 3881 audit messages Junction emits about itself (DICOM codes, as OpenHIM uses). */
import { hostname } from 'node:os';
import type { AuditRecord } from '../storage/records.js';

type NewAudit = Omit<AuditRecord, '_id'>;

const DCM = 'DCM';
export const OUTCOME_SUCCESS = '0';
export const OUTCOME_MINOR_FAILURE = '4';
export const OUTCOME_MAJOR_FAILURE = '12';

// RFC 3881 audit source types: 1 end-user interface (logins, audit log reads), 3 web server (the service itself).
const SOURCE_UI = { code: '1', displayName: 'End User Interface', codeSystemName: 'RFC-3881' };
const SOURCE_WEB_SERVER = { code: '3', displayName: 'Web Server Process', codeSystemName: 'RFC-3881' };
const ROLE_APPLICATION = { code: '110150', displayName: 'Application', codeSystemName: DCM };
const ROLE_LAUNCHER = { code: '110151', displayName: 'Application Launcher', codeSystemName: DCM };

export type LoginMethod = 'local' | 'basic' | 'token' | 'openid' | 'set-password-link' | 'session' | 'none' | 'mutual-tls' | 'custom-token' | 'jwt' | 'unsupported';

export interface LoginAttempt {
  /** The username the caller gave; empty when no credentials were presented. */
  username: string;
  address: string;
  method: LoginMethod;
  success: boolean;
  /** Why a failure happened, in a word or two (wrong password, unknown user, expired token ...). */
  reason?: string;
  auditSourceID: string;
  at?: Date;
}

/** A user authentication event (EventID 110114, type 110122 Login). */
export function userLoginEvent(attempt: LoginAttempt): NewAudit {
  const details: { type: string; value: string }[] = [{ type: 'method', value: attempt.method }];
  if (attempt.reason !== undefined) details.push({ type: 'reason', value: attempt.reason });
  return loginEvent({ username: attempt.username, address: attempt.address, auditSourceID: attempt.auditSourceID, success: attempt.success, at: attempt.at ?? new Date(), details });
}

/** Failed authentications of one identity from one address, counted instead of recorded one by one. */
export interface FailedLoginSummary {
  /** The identity claimed; empty when the attempts named none, or were counted for the address as a whole. */
  username: string;
  address: string;
  methods: readonly LoginMethod[];
  /** Attempts checked and found wrong. */
  failed: number;
  /** Attempts refused by the throttle without being checked. */
  refused: number;
  /** First and last attempt counted. */
  from: Date;
  to: Date;
  auditSourceID: string;
}

/**
 * One audit event standing for many failed authentications (EventID 110114 Login, outcome minor failure), dated at
 * the last attempt, so a flood of failures costs one write per window instead of one per attempt.
 */
export function failedLoginSummaryEvent(summary: FailedLoginSummary): NewAudit {
  const attempts = summary.failed + summary.refused;
  const who = summary.username === '' ? '' : `for client ${summary.username} `;
  const reason = `${attempts} failed attempts ${who}from address ${summary.address} between ${summary.from.toISOString()} and ${summary.to.toISOString()}`;
  return loginEvent({
    username: summary.username,
    address: summary.address,
    auditSourceID: summary.auditSourceID,
    success: false,
    at: summary.to,
    details: [
      { type: 'method', value: summary.methods.join(',') },
      { type: 'reason', value: reason },
      { type: 'attempts', value: String(attempts) },
      { type: 'failed', value: String(summary.failed) },
      { type: 'refused', value: String(summary.refused) },
      { type: 'from', value: summary.from.toISOString() },
      { type: 'to', value: summary.to.toISOString() },
    ],
  });
}

function loginEvent(event: {
  username: string;
  address: string;
  auditSourceID: string;
  success: boolean;
  at: Date;
  details: { type: string; value: string }[];
}): NewAudit {
  const user = event.username === '' ? 'anonymous' : event.username;
  return {
    eventIdentification: {
      eventDateTime: event.at,
      eventOutcomeIndicator: event.success ? OUTCOME_SUCCESS : OUTCOME_MINOR_FAILURE,
      eventActionCode: 'E',
      eventID: { code: '110114', displayName: 'UserAuthenticated', codeSystemName: DCM },
      eventTypeCode: { code: '110122', displayName: 'Login', codeSystemName: DCM },
    },
    activeParticipant: [
      { userID: user, userIsRequestor: 'true', networkAccessPointID: event.address, networkAccessPointTypeCode: '2' },
      { userID: event.auditSourceID, userIsRequestor: 'false', networkAccessPointID: hostname(), networkAccessPointTypeCode: '1', roleIDCode: ROLE_APPLICATION },
    ],
    auditSourceIdentification: { auditSourceID: event.auditSourceID, auditSourceTypeCode: SOURCE_UI },
    participantObjectIdentification: [
      {
        participantObjectID: user,
        participantObjectTypeCode: '1',
        participantObjectTypeCodeRole: '11',
        participantObjectIDTypeCode: { code: '11', displayName: 'User Identifier', codeSystemName: 'RFC-3881' },
        participantObjectDetail: event.details,
      },
    ],
  };
}

/** What started or stopped: Junction itself, or a mediator registering with it. */
export interface ApplicationActivity {
  kind: 'start' | 'stop';
  /** Junction's `auditEvents.auditSourceID`: the source of the event. */
  auditSourceID: string;
  /** The application: Junction (its auditSourceID) or the mediator's name. */
  system?: string;
  /** Where the application runs: this host, or the mediator's first endpoint's host. */
  host?: string;
  /** The process id, for Junction itself. */
  pid?: string;
  /** Who started it: `system` for Junction, the registering API user for a mediator. */
  launcher?: string;
  /** Details about the application (a mediator's urn and version). */
  details?: { type: string; value: string }[];
  at?: Date;
}

/** An application start or stop event (EventID 110100, type 110120 / 110121). */
export function applicationActivityEvent(kind: 'start' | 'stop', auditSourceID: string, at = new Date()): NewAudit {
  return applicationEvent({ kind, auditSourceID, pid: String(process.pid), launcher: 'system', at });
}

/** Application Activity for any application: the system participant, its launcher, and the source as a web server. */
export function applicationEvent(activity: ApplicationActivity): NewAudit {
  const type = activity.kind === 'start' ? { code: '110120', displayName: 'Application Start' } : { code: '110121', displayName: 'Application Stop' };
  const system: AuditRecord['activeParticipant'][number] = {
    userID: activity.system ?? activity.auditSourceID,
    userIsRequestor: 'false',
    networkAccessPointID: activity.host ?? hostname(),
    networkAccessPointTypeCode: '1',
    roleIDCode: ROLE_APPLICATION,
  };
  if (activity.pid !== undefined) system.alternativeUserID = activity.pid;
  const participants = [system];
  if (activity.launcher !== undefined) participants.push({ userID: activity.launcher, userIsRequestor: 'true', roleIDCode: ROLE_LAUNCHER });
  return {
    eventIdentification: {
      eventDateTime: activity.at ?? new Date(),
      eventOutcomeIndicator: OUTCOME_SUCCESS,
      eventActionCode: 'E',
      eventID: { code: '110100', displayName: 'Application Activity', codeSystemName: DCM },
      eventTypeCode: { ...type, codeSystemName: DCM },
    },
    activeParticipant: participants,
    auditSourceIdentification: { auditSourceID: activity.auditSourceID, auditSourceTypeCode: SOURCE_WEB_SERVER },
    participantObjectIdentification:
      activity.details === undefined
        ? []
        : [{ participantObjectID: system.userID ?? '', participantObjectTypeCode: '2', participantObjectIDTypeCode: { code: '110150', displayName: 'Application', codeSystemName: DCM }, participantObjectName: system.userID ?? '', participantObjectDetail: activity.details }],
  };
}

/** A mediator's registration (`POST /mediators`), audited as OpenHIM does: the mediator's start, at its first endpoint's host. */
export interface MediatorRegistration {
  name: string;
  urn: string;
  version?: string;
  /** The first endpoint's host; absent when it has none. */
  host?: string;
  /** The API user who registered it. */
  by: string;
  auditSourceID: string;
  at?: Date;
}

/** Application Start (110100 / 110120) with the mediator as the application. */
export function mediatorRegistrationEvent(registration: MediatorRegistration): NewAudit {
  const details = [{ type: 'urn', value: registration.urn }];
  if (registration.version !== undefined) details.push({ type: 'version', value: registration.version });
  return applicationEvent({
    kind: 'start',
    auditSourceID: registration.auditSourceID,
    system: registration.name,
    ...(registration.host === undefined ? {} : { host: registration.host }),
    launcher: registration.by,
    details,
    ...(registration.at === undefined ? {} : { at: registration.at }),
  });
}

/** Clients refused on a transaction port from one address: one refusal, or a window of them counted. */
export interface NodeRefusal {
  address: string;
  /** The channel(s) the refusals were on. */
  channels: readonly string[];
  reason: string;
  /** Refusals this event stands for (1 for a single refusal). */
  attempts: number;
  from: Date;
  to: Date;
  auditSourceID: string;
}

/**
 * Node authentication failure (EventID 110113 Security Alert, type 110126 Node Authentication, outcome minor failure):
 * the refused node is the participant object, by its address (ID type 110182 Node ID). Dated at the last refusal.
 */
export function nodeAuthenticationEvent(refusal: NodeRefusal): NewAudit {
  const details = [
    { type: 'reason', value: refusal.reason },
    { type: 'channel', value: refusal.channels.join(',') },
    { type: 'attempts', value: String(refusal.attempts) },
  ];
  if (refusal.attempts > 1) details.push({ type: 'from', value: refusal.from.toISOString() }, { type: 'to', value: refusal.to.toISOString() });
  return {
    eventIdentification: {
      eventDateTime: refusal.to,
      eventOutcomeIndicator: OUTCOME_MINOR_FAILURE,
      eventActionCode: 'E',
      eventID: { code: '110113', displayName: 'Security Alert', codeSystemName: DCM },
      eventTypeCode: { code: '110126', displayName: 'Node Authentication', codeSystemName: DCM },
    },
    activeParticipant: [{ userID: refusal.auditSourceID, userIsRequestor: 'false', networkAccessPointID: hostname(), networkAccessPointTypeCode: '1', roleIDCode: ROLE_APPLICATION }],
    auditSourceIdentification: { auditSourceID: refusal.auditSourceID, auditSourceTypeCode: SOURCE_WEB_SERVER },
    participantObjectIdentification: [
      {
        participantObjectID: refusal.address,
        participantObjectTypeCode: '2',
        participantObjectIDTypeCode: { code: '110182', displayName: 'Node ID', codeSystemName: DCM },
        participantObjectName: refusal.address,
        participantObjectDetail: details,
      },
    ],
  };
}

/** One read of the audit log by an API user, summarised per request. */
export interface AuditLogRead {
  /** The user's email and groups (the groups are the role, as OpenHIM records it). */
  user: { email: string; groups: readonly string[] };
  address: string;
  /** The request's URI: the audit read (`.../audits/<id>`) or the query (`.../audits?filters=...`). */
  uri: string;
  outcome: typeof OUTCOME_SUCCESS | typeof OUTCOME_MINOR_FAILURE | typeof OUTCOME_MAJOR_FAILURE;
  /** For a list or an export: how many records were read. */
  count?: number;
  /** The ids read, when few enough to list. */
  ids?: readonly string[];
  auditSourceID: string;
  at?: Date;
}

/** Audit Log Used (EventID 110101, action R): the log as a security resource (ID type 12 URI, role 13), one per request. */
export function auditLogUsedEvent(read: AuditLogRead): NewAudit {
  const groups = read.user.groups.join(',');
  const details: { type: string; value: string }[] = [];
  if (read.count !== undefined) details.push({ type: 'count', value: String(read.count) });
  if (read.ids !== undefined && read.ids.length > 0) details.push({ type: 'ids', value: read.ids.join(',') });
  return {
    eventIdentification: {
      eventDateTime: read.at ?? new Date(),
      eventOutcomeIndicator: read.outcome,
      eventActionCode: 'R',
      eventID: { code: '110101', displayName: 'Audit Log Used', codeSystemName: DCM },
    },
    activeParticipant: [
      { userID: read.auditSourceID, userIsRequestor: 'false', networkAccessPointID: hostname(), networkAccessPointTypeCode: '1', roleIDCode: ROLE_APPLICATION },
      { userID: read.user.email, userIsRequestor: 'true', networkAccessPointID: read.address, networkAccessPointTypeCode: '2', ...(groups === '' ? {} : { roleIDCode: { code: groups, displayName: groups } }) },
    ],
    auditSourceIdentification: { auditSourceID: read.auditSourceID, auditSourceTypeCode: SOURCE_UI },
    participantObjectIdentification: [
      {
        participantObjectID: read.uri,
        participantObjectTypeCode: '2',
        participantObjectTypeCodeRole: '13',
        participantObjectIDTypeCode: { code: '12', displayName: 'URI', codeSystemName: 'RFC-3881' },
        participantObjectName: 'Security Audit Log',
        ...(details.length === 0 ? {} : { participantObjectDetail: details }),
      },
    ],
  };
}
