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
  return {
    eventIdentification: {
      eventDateTime: attempt.at ?? new Date(),
      eventOutcomeIndicator: attempt.success ? OUTCOME_SUCCESS : OUTCOME_MINOR_FAILURE,
      eventActionCode: 'E',
      eventID: { code: '110114', displayName: 'UserAuthenticated', codeSystemName: DCM },
      eventTypeCode: { code: '110122', displayName: 'Login', codeSystemName: DCM },
    },
    activeParticipant: [
      {
        userID: attempt.username === '' ? 'anonymous' : attempt.username,
        userIsRequestor: true,
        networkAccessPointID: attempt.address,
        networkAccessPointTypeCode: '2',
      },
      { userID: attempt.auditSourceID, userIsRequestor: false, networkAccessPointID: hostname(), networkAccessPointTypeCode: '1' },
    ],
    auditSourceIdentification: { auditSourceID: attempt.auditSourceID },
    participantObjectIdentification: [
      {
        participantObjectID: attempt.username === '' ? 'anonymous' : attempt.username,
        participantObjectTypeCode: '1',
        participantObjectTypeCodeRole: '11',
        participantObjectIDTypeCode: { code: '11', displayName: 'User Identifier', codeSystemName: 'RFC-3881' },
        participantObjectDetail: details,
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
        userIsRequestor: false,
        networkAccessPointID: hostname(),
        networkAccessPointTypeCode: '1',
        roleIDCode: { code: '110150', displayName: 'Application', codeSystemName: DCM },
      },
    ],
    auditSourceIdentification: { auditSourceID },
    participantObjectIdentification: [],
  };
}
