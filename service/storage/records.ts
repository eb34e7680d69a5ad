/**
 * Shapes of stored documents. These are internal: API answers are built from them by the public views in api/.
 * Where a document holds what an answer shows, its type is the answer's (contracts/) with dates as Dates, so the two
 * cannot drift; the fields only storage sees (secrets, bookkeeping) are declared here.
 */
import type { PublicUser } from '../contracts/api.js';
import type { AlertRecipient, Channel, ChannelAlert, ChannelAudit, ChannelCreate, ChannelRoute, ChannelRouteInput, RewriteRule } from '../contracts/channels.js';
import type { Audit, AuditEventIdentification } from '../contracts/audits.js';
import type { ClientDetails } from '../contracts/clients.js';
import type { ContactGroup } from '../contracts/contact-groups.js';
import type { Notification, NotificationAlert, NotificationReport } from '../contracts/notifications.js';
import type { MediatorConfigDef, MediatorConfigType, PublicMediator } from '../contracts/mediators.js';
import type { TaskTransactionView, TaskView } from '../contracts/tasks.js';
import type { Claimed } from './claims.js';

export type { MediatorConfigDef, MediatorConfigType };

/** A shape of the API as stored: the listed fields, ISO 8601 text in answers, are Dates (optional ones stay optional). */
type Stored<T, DateFields extends keyof T> = Omit<T, DateFields> & { [K in keyof Pick<T, DateFields>]: Date };

/** Every stored document has a string id assigned by the store. */
export interface StoredDoc {
  _id: string;
}

/** Legacy credential for the deprecated token scheme: sha512(salt + password), kept only while that scheme is on. */
export interface LegacyTokenCredential {
  salt: string;
  hash: string;
}

/** A user: the public view's fields (`email` lower-cased and unique), and the password material it never shows. */
export interface UserRecord extends StoredDoc, Stored<Omit<PublicUser, 'builtin' | 'locked' | 'expiry'>, 'createdAt' | 'updatedAt'> {
  /** scrypt hash in the self-describing format of service/accounts/passwords.ts; null = cannot log in (invited). */
  passwordHash: string | null;
  /** A pending set-password link (`tokenType` says which kind): the token's sha256 only, and when it expires. */
  tokenHash?: string;
  tokenExpiry?: Date;
  passwordChangedAt?: Date;
  /** The built-in super user: cannot be deleted and always keeps the admin group. Absent means false. */
  builtin?: boolean;
  legacyToken?: LegacyTokenCredential;
  /** How the user signs in when not by password: `openid` for users created by an OpenID sign-in. Absent means local. */
  provider?: 'openid';
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

/** An RFC 3881 audit message in OpenHIM's audit model (contracts/audits.ts), its event time a Date. */
export interface AuditRecord extends StoredDoc, Omit<Audit, '_id' | 'eventIdentification'> {
  eventIdentification: Stored<AuditEventIdentification, 'eventDateTime'>;
}

export interface CodedValue {
  code: string;
  displayName?: string;
  codeSystemName?: string;
}

/** A downstream route of a channel (OpenHIM field names); its password is kept in clear because it must be sent. */
export type RouteRecord = ChannelRoute;
export type AlertRecipientRecord = AlertRecipient;
export type AlertRecord = ChannelAlert;
export type RewriteRuleRecord = RewriteRule;

/** A channel, as answered but for its dates and its route passwords (in clear here, masked in answers). */
export interface ChannelRecord extends StoredDoc, Stored<Omit<Channel, 'listener' | 'admitsNobody'>, 'createdAt' | 'updatedAt'> {}

/** One create, update or delete of a channel (the channelAudits collection): OpenHIM's patch-history record. */
export interface ChannelAuditRecord extends StoredDoc, Stored<ChannelAudit, 'date'> {}

/** A system that may send transactions. Secrets are stored hashed (password) or kept for lookup (custom token digest). */
export interface ClientRecord extends StoredDoc, ClientDetails {
  clientID: string;
  /** Must equal the CN of the client certificate when one is used. */
  clientDomain?: string;
  name: string;
  roles: string[];
  /** scrypt hash (service/accounts/passwords.ts), or an OpenHIM-style salted sha512/sha256 hash imported as given. */
  passwordHash?: string;
  passwordAlgorithm?: 'scrypt' | 'sha512' | 'sha256';
  passwordSalt?: string;
  /** PEM of the client certificate and its SHA-256 fingerprint (colon-separated hex, as node:crypto prints it). */
  certPem?: string;
  certFingerprint?: string;
  /** sha256 of the custom token: unique, so a token identifies exactly one client. */
  customTokenHash?: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint or default-channel route of a mediator, as registered (defaults are applied when a channel is installed). */
export type MediatorRoute = ChannelRouteInput;

/** A channel of a mediator's defaultChannelConfig, as registered; it passes the channel rules when installed. */
export type MediatorChannelDefault = ChannelCreate;

/**
 * A registered mediator (OpenHIM field names; the `_` fields are kept by Junction, never sent by the mediator). `urn`
 * is unique and stable across versions; only a higher (semver) version replaces the registration. `config` holds
 * passwords in clear (masked in answers); `installedChannels` is updated when a higher version registers.
 */
export interface MediatorRecord extends StoredDoc, Stored<Omit<PublicMediator, 'online'>, 'createdAt' | 'updatedAt' | '_configModifiedTS' | '_lastHeartbeat'> {}

/**
 * A re-run task (COMPAT.md "tasks"). Its transactions are `TaskTransactionRecord`s, one document each. While an
 * instance runs it, the task carries that instance's claim (storage/claims.ts).
 */
export interface TaskRecord extends StoredDoc, Claimed, Stored<Omit<TaskView, TaskOutcomeField>, 'created' | 'completedDate'>, Partial<Pick<TaskView, TaskCountField>> {}

/** The outcome counts are written by the task runner after each batch; tasks stored before they existed lack them. */
type TaskCountField = 'succeededTransactions' | 'failedTransactions';
/** The verdict is read from the counts, never stored. */
type TaskOutcomeField = TaskCountField | 'outcome';

/**
 * One transaction of a task. It is written Processing, with the id the re-run will get, before anything is sent;
 * after a crash that id tells whether the re-run happened (see service/schedulers/task-runner.ts).
 */
export interface TaskTransactionRecord extends StoredDoc, TaskTransactionView {
  taskID: string;
  /** Position in the task, from 0: the order of re-running. */
  index: number;
}

/**
 * A transaction waiting for auto retry (`_id` is the transaction's id). `childID` is written before a retry is
 * sent, so a crash mid-retry is recognised at the next scan instead of sending it twice; the claim beside it keeps
 * another instance from taking that retry for an interrupted one while it is in flight.
 */
export interface AutoRetryRecord extends StoredDoc, Claimed {
  queuedAt: Date;
  childID?: string;
}

/** A contact group (OpenHIM's `contactgroups`): its name is unique; channel alerts name it by `_id`. */
export interface ContactGroupRecord extends StoredDoc, ContactGroup {}

/** An alert's facts as stored: the window's ends are Dates. */
export type NotificationAlertRecord = Omit<NotificationAlert, 'window'> & { window: { from: Date; to: Date } };
/** A report's span as stored. */
export type NotificationReportRecord = Stored<NotificationReport, 'from' | 'to'>;

/**
 * One message to a person (contracts/notifications.ts), recorded before it is sent. The bodies are kept until it is
 * sent or failed for good, then dropped (the subject stays), so the records stay small however long they are kept.
 */
export interface NotificationRecord extends StoredDoc, Claimed, Omit<Stored<Notification, 'created'>, 'nextAttemptAt' | 'sentAt' | 'alert' | 'report'> {
  nextAttemptAt?: Date;
  sentAt?: Date;
  alert?: NotificationAlertRecord;
  report?: NotificationReportRecord;
  /** Plain-text body of an email. */
  text?: string;
  /** HTML body of an email. */
  html?: string;
  /** The one line of an SMS. */
  sms?: string;
  /**
   * Unique when set: what makes a message one of a kind, such as `report:daily:2026-11-23:<email>`, so a job run
   * twice (a restart at 07:00) records it once.
   */
  key?: string;
}

/**
 * A setting saved in the console (contracts/settings.ts), one record per key: it overrides the configuration file's
 * value until removed. A secret's value is sealed with the keystore secret (settings/clinic-settings.ts).
 */
export interface SettingRecord extends StoredDoc {
  key: string;
  value: string | number | boolean;
  changed: Date;
  changedBy: string;
}

/** What a scheduled job keeps between runs (the alert job's last window and cursor, say), by the job's name. */
export interface JobStateRecord extends StoredDoc {
  name: string;
  data: Record<string, unknown>;
  updated: Date;
}
