/** Shapes of stored documents. These are internal: API answers are built from them by the public views in api/. */
import type { CollectionSpec, StoredDoc } from './store.js';

/** Legacy credential for the deprecated token scheme: sha512(salt + password), kept only while that scheme is on. */
export interface LegacyTokenCredential {
  salt: string;
  hash: string;
}

export interface UserRecord extends StoredDoc {
  /** Lower-cased; unique. */
  email: string;
  firstname: string;
  surname: string;
  groups: string[];
  msisdn?: string;
  dailyReport: boolean;
  weeklyReport: boolean;
  /** Console preferences (transaction filters, list settings). Free-form JSON object. */
  settings: Record<string, unknown>;
  /** scrypt hash in the self-describing format of service/accounts/passwords.ts; null = cannot log in. */
  passwordHash: string | null;
  passwordChangeRequired: boolean;
  passwordChangedAt?: Date;
  /** The built-in super user: cannot be deleted and always keeps the admin group. */
  builtin?: boolean;
  legacyToken?: LegacyTokenCredential;
  createdAt: Date;
  updatedAt: Date;
}

export interface SessionRecord extends StoredDoc {
  /** sha256 of the cookie value: a stolen data folder does not yield live sessions. Unique. */
  tokenHash: string;
  userId: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  address: string;
  userAgent?: string;
}

/** An RFC 3881 audit message, in the JSON shape OpenHIM uses for its audits collection. */
export interface AuditRecord extends StoredDoc {
  rawMessage?: string;
  syslog?: Record<string, unknown>;
  eventIdentification: {
    eventDateTime: Date;
    eventOutcomeIndicator: string;
    eventActionCode: string;
    eventID: CodedValue;
    eventTypeCode?: CodedValue;
  };
  activeParticipant: {
    userID: string;
    alternativeUserID?: string;
    userIsRequestor?: boolean;
    networkAccessPointID?: string;
    networkAccessPointTypeCode?: string;
    roleIDCode?: CodedValue;
  }[];
  auditSourceIdentification: { auditSourceID: string; auditEnterpriseSiteID?: string; auditSourceTypeCode?: CodedValue };
  participantObjectIdentification: {
    participantObjectID: string;
    participantObjectTypeCode?: string;
    participantObjectTypeCodeRole?: string;
    participantObjectIDTypeCode?: CodedValue;
    participantObjectQuery?: string;
    participantObjectDetail?: { type: string; value: string }[];
  }[];
}

export interface CodedValue {
  code: string;
  displayName?: string;
  codeSystemName?: string;
}

/** Layout of every configuration collection; each storage implementation creates these. */
export const collectionSpecs = {
  users: { name: 'users', unique: ['email'], indexed: [] },
  sessions: { name: 'sessions', unique: ['tokenHash'], indexed: ['userId', 'expiresAt'] },
  audits: { name: 'audits', unique: [], indexed: ['eventIdentification.eventDateTime'] },
} as const satisfies Record<string, CollectionSpec>;
