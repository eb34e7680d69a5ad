/** Builders for the RFC 3881 audit messages Junction emits about itself (DICOM codes, as OpenHIM uses). */
import { hostname } from 'node:os';
import type { AuditRecord } from '../storage/records.js';

type NewAudit = Omit<AuditRecord, '_id'>;

const DCM = 'DCM';
export const OUTCOME_SUCCESS = '0';
export const OUTCOME_MINOR_FAILURE = '4';

export type LoginMethod = 'local' | 'basic' | 'token' | 'session' | 'none' | 'mutual-tls' | 'custom-token' | 'jwt' | 'unsupported';

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
      { userID: event.auditSourceID, userIsRequestor: 'false', networkAccessPointID: hostname(), networkAccessPointTypeCode: '1' },
    ],
    auditSourceIdentification: { auditSourceID: event.auditSourceID },
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

/** An application start or stop event (EventID 110100, type 110120 / 110121). */
export function applicationActivityEvent(kind: 'start' | 'stop', auditSourceID: string, at = new Date()): NewAudit {
  const type = kind === 'start' ? { code: '110120', displayName: 'Application Start' } : { code: '110121', displayName: 'Application Stop' };
  return {
    eventIdentification: {
      eventDateTime: at,
      eventOutcomeIndicator: OUTCOME_SUCCESS,
      eventActionCode: 'E',
      eventID: { code: '110100', displayName: 'Application Activity', codeSystemName: DCM },
      eventTypeCode: { ...type, codeSystemName: DCM },
    },
    activeParticipant: [
      {
        userID: auditSourceID,
        alternativeUserID: String(process.pid),
        userIsRequestor: 'false',
        networkAccessPointID: hostname(),
        networkAccessPointTypeCode: '1',
        roleIDCode: { code: '110150', displayName: 'Application', codeSystemName: DCM },
      },
    ],
    auditSourceIdentification: { auditSourceID },
    participantObjectIdentification: [],
  };
}
