/** Shapes of stored documents. These are internal: API answers are built from them by the public views in api/. */
import type { TaskItemStatus, TaskStatus } from '../domain/tasks.js';
import type { TransactionStatus } from '../domain/transaction-status.js';

/** Every stored document has a string id assigned by the store. */
export interface StoredDoc {
  _id: string;
}

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

/** A downstream route of a channel (OpenHIM field names). */
export interface RouteRecord {
  name: string;
  type: 'http' | 'tcp' | 'mllp';
  host: string;
  port: number;
  /** Replaces the request path when set. */
  path?: string;
  /** sed-like `s/from/to[/g]`, applied to the request path when `path` is not set. */
  pathTransform?: string;
  primary: boolean;
  /** HTTPS (or TLS for tcp routes) to the downstream. */
  secured: boolean;
  /** Basic credentials for the downstream; the password is kept because it must be sent. Masked in API output. */
  username?: string;
  password?: string;
  forwardAuthHeader: boolean;
  status: 'enabled' | 'disabled';
}

export interface AlertRecipientRecord {
  user: string;
  method: 'email' | 'sms';
  maxAlerts: 'no max' | '1 per hour' | '1 per day';
}

export interface AlertRecord {
  condition: 'status' | 'auto-retry-max-attempted';
  /** A code such as `401`, or a range such as `4xx`. */
  status?: string;
  /** Percent; the alert fires only while the failure rate is above it. */
  failureRate?: number;
  groups: string[];
  users: AlertRecipientRecord[];
}

export interface RewriteRuleRecord {
  fromHost: string;
  toHost: string;
  fromPort: number;
  toPort: number;
  pathTransform?: string;
}

export interface ChannelRecord extends StoredDoc {
  name: string;
  description?: string;
  type: 'http' | 'tcp' | 'tls' | 'polling';
  /** Regular expression matched against the request path (http channels). */
  urlPattern: string;
  /** Empty means every method. */
  methods: string[];
  priority?: number;
  status: 'enabled' | 'disabled' | 'deleted';
  authType: 'private' | 'public';
  allow: string[];
  whitelistedIPs: string[];
  matchContentTypes: string[];
  matchContentRegex?: string;
  matchContentXpath?: string;
  matchContentJson?: string;
  matchContentValue?: string;
  tcpHost?: string;
  tcpPort?: number;
  pollingSchedule?: string;
  requestBody: boolean;
  responseBody: boolean;
  autoRetryEnabled: boolean;
  autoRetryPeriodMinutes: number;
  autoRetryMaxAttempts?: number;
  rewriteUrls: boolean;
  addAutoRewriteRules: boolean;
  rewriteUrlsConfig: RewriteRuleRecord[];
  txViewAcl: string[];
  txViewFullAcl: string[];
  txRerunAcl: string[];
  alerts: AlertRecord[];
  properties: Record<string, string>[];
  /** Milliseconds to wait for the routes. */
  timeout?: number;
  maxBodyAgeDays?: number;
  routes: RouteRecord[];
  updatedBy?: { id: string; name: string };
  createdAt: Date;
  updatedAt: Date;
}

/** A system that may send transactions. Secrets are stored hashed (password) or kept for lookup (custom token digest). */
export interface ClientRecord extends StoredDoc {
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
  organization?: string;
  location?: string;
  softwareName?: string;
  description?: string;
  contactPerson?: string;
  contactPersonEmail?: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The value types of a mediator configuration parameter (SPEC.md "Mediator registration"). */
export type MediatorConfigType = 'string' | 'bigstring' | 'bool' | 'number' | 'option' | 'map' | 'struct' | 'password';

/** One configuration definition of a mediator; a struct's template holds definitions without further structs. */
export interface MediatorConfigDef {
  param: string;
  displayName?: string;
  description?: string;
  type: MediatorConfigType;
  /** The allowed values of an `option`. */
  values?: string[];
  /** The fields of a `struct`. */
  template?: MediatorConfigDef[];
  /** The value is an array of the type. */
  array?: boolean;
}

/** An endpoint or default-channel route of a mediator, as registered (defaults are applied when a channel is installed). */
export type MediatorRoute = Pick<RouteRecord, 'name' | 'host' | 'port'> & Partial<Omit<RouteRecord, 'name' | 'host' | 'port'>>;

/** A channel of a mediator's defaultChannelConfig, as registered; it passes the channel rules when installed. */
export type MediatorChannelDefault = Partial<Omit<ChannelRecord, '_id' | 'name' | 'routes' | 'alerts' | 'createdAt' | 'updatedAt' | 'updatedBy'>> & {
  name: string;
  routes: MediatorRoute[];
  alerts?: Partial<AlertRecord>[];
};

/** A registered mediator (OpenHIM field names; the `_` fields are kept by Junction, never sent by the mediator). */
export interface MediatorRecord extends StoredDoc {
  /** Unique and stable across versions. */
  urn: string;
  /** Semver; only a higher version replaces the registration. */
  version: string;
  name: string;
  description?: string;
  endpoints: MediatorRoute[];
  defaultChannelConfig: MediatorChannelDefault[];
  configDefs: MediatorConfigDef[];
  /** The current configuration: parameter name to value, valid against configDefs. Passwords in clear (masked in answers). */
  config: Record<string, unknown>;
  /** Channels installed from defaultChannelConfig (by default name), updated when a higher version registers. */
  installedChannels: { name: string; channelId: string }[];
  /** When config was last changed through the API: the next heartbeat returns it. */
  _configModifiedTS?: Date;
  _lastHeartbeat?: Date;
  /** Seconds, as reported by the last heartbeat. */
  _uptime?: number;
  updatedBy?: { id: string; name: string };
  createdAt: Date;
  updatedAt: Date;
}

/** A re-run task (COMPAT.md "tasks"). Its transactions are `TaskTransactionRecord`s, one document each. */
export interface TaskRecord extends StoredDoc {
  status: TaskStatus;
  /** How many of its transactions are re-run at the same time. */
  batchSize: number;
  totalTransactions: number;
  /** Transactions not re-run yet (Queued or Processing). */
  remainingTransactions: number;
  /** Email of the user who created it. */
  user: string;
  created: Date;
  completedDate?: Date;
}

/**
 * One transaction of a task. It is written Processing, with the id the re-run will get, before anything is sent;
 * after a crash that id tells whether the re-run happened (see service/schedulers/task-runner.ts).
 */
export interface TaskTransactionRecord extends StoredDoc {
  taskID: string;
  /** Position in the task, from 0: the order of re-running. */
  index: number;
  /** The transaction to re-run. */
  tid: string;
  tstatus: TaskItemStatus;
  /** The new transaction's id: assigned when the re-run starts. */
  rerunID?: string;
  rerunStatus?: TransactionStatus;
  /** Why the transaction was not re-run. */
  error?: string;
}

/**
 * A transaction waiting for auto retry (`_id` is the transaction's id). `childID` is written before a retry is
 * sent, so a crash mid-retry is recognised at the next scan instead of sending it twice.
 */
export interface AutoRetryRecord extends StoredDoc {
  queuedAt: Date;
  childID?: string;
}
