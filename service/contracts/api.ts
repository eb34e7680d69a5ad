/** Types shared by the service, the console and the shell. Import with `import type`. */
import type { DiskLevel } from './vocabulary.js';

/** Every error answer of the management API. */
export interface ApiErrorBody {
  error: {
    code: string;
    message: string;
    details: unknown;
  };
}

/** The answer of a `DELETE`: what was done. */
export interface MessageAnswer {
  message: string;
}

/** One problem found while validating a request. */
export interface ValidationProblem {
  /** Where: `body.email`, `query.limit`, `params.email`. */
  path: string;
  message: string;
}

/** The public view of a user; never carries password material. */
export interface PublicUser {
  _id: string;
  /** Lower-cased; unique. */
  email: string;
  firstname: string;
  surname: string;
  groups: string[];
  msisdn?: string;
  dailyReport: boolean;
  weeklyReport: boolean;
  /** Console preferences (transaction filters, list settings): a free-form JSON object. */
  settings: Record<string, unknown>;
  passwordChangeRequired: boolean;
  builtin: boolean;
  /** OpenHIM's flag: an invited user who has not set a password yet, and so cannot sign in. */
  locked: boolean;
  /** `openid` for a user who signs in with OpenID Connect and has no password here (as OpenHIM marks them). */
  provider?: 'openid';
  /** A set-password link is pending: an invitation (`newUser`) or a password reset (`existingUser`). */
  tokenType?: PasswordTokenType;
  /** When the pending link expires. */
  expiry?: string;
  createdAt: string;
  updatedAt: string;
}

/** OpenHIM's kinds of set-password token: an invited user's first password, or a reset of an existing one. */
export type PasswordTokenType = 'newUser' | 'existingUser';

/** How a user may sign in to the management API (`api.authenticationTypes`; `GET /authentication/api-types`). */
export type ApiAuthenticationType = 'basic' | 'local' | 'token' | 'openid';

/** How a client may authenticate on the transaction ports (`GET /authentication/types`, as OpenHIM names them). */
export type ClientAuthenticationType = 'mutual-tls-auth' | 'basic-auth' | 'custom-token-auth' | 'jwt-auth';

export interface HeartbeatAnswer {
  master: number;
  mediators: Record<string, number | null>;
  now: number;
}

export interface AboutAnswer {
  currentCoreVersion: string;
  serverTimezone: string;
  product: string;
  version: string;
  nodeVersion: string;
  /** The ports Junction listens on; only in answers to admins (which ports are open is useful to an attacker). */
  ports?: ServicePort[];
  /** The audit repository's and audit sender's counts since start; only in answers to admins. */
  audits?: AboutAudits;
  /**
   * The console address that links in alert, report and set-password emails use, and whether an admin set it
   * (`alerts.consoleURL`) or Junction guessed it from its listening address; only in answers to admins.
   */
  messageLinks?: { url: string; configured: boolean };
  /** The server certificate being served (anyone connecting sees it; shown so an admin notices expiry). */
  certificate?: AboutCertificate;
  /** The storage engine, and (to admins) the instances sharing it that are alive now. */
  storage: AboutStorage;
  /** The free space of the data folder's disk, and what Junction does about it. */
  disk?: DiskSpace;
  /** What an admin should act on now (low disk space, a failing log file), in words; only in answers to admins. */
  warnings?: string[];
}

/** The data folder's disk as the disk watcher last measured it (issue 33). */
export interface DiskSpace {
  /** `low`: below `storage.disk.warningMB`; `critical`: below `storage.disk.floorMB`. */
  level: DiskLevel;
  freeBytes: number;
  totalBytes: number;
  warningBytes: number;
  floorBytes: number;
  /** New transactions are refused with 503 (an AR NAK on message channels) until space comes back. */
  refusing: boolean;
  checkedAt: string;
}

/** One Junction instance alive now, as `GET /about` lists them. */
export interface AboutInstance {
  id: string;
  /** The machine's name. */
  name: string;
  /** The management API's address as the instance itself sees it. */
  apiUrl: string;
  version: string;
  started: string;
  /** Its latest heartbeat. */
  lastBeat: string;
  /** True for the instance that answered. */
  self: boolean;
}

export interface AboutStorage {
  engine: 'embedded' | 'postgres';
  /** Only in answers to admins. */
  instances?: AboutInstance[];
}

/** Counts of audit messages by what became of them. */
export interface AuditMessageCounts {
  /** Messages handed in. */
  received: number;
  /** Written to the audit log, audits and malformed ones alike. */
  stored: number;
  /** Not an audit message (stored raw). */
  malformed: number;
  /** The write failed. */
  failed: number;
  /** Refused unwritten because too many writes were in flight. */
  dropped: number;
}

/** What `GET /about` tells admins about audits: the repository's intake and listeners, and the sender of Junction's own events. */
export interface AboutAudits {
  /** Absent when no audit listener is enabled. */
  intake?: AuditMessageCounts & { inFlight: number };
  listeners: {
    transport: 'udp' | 'tcp' | 'tls';
    port: number;
    connections: number;
    received: number;
    malformedFraming: number;
    refusedConnections: number;
    tooLarge: number;
  }[];
  /** Absent when Junction's own audit events are stored here (`auditEvents.interface: internal`). */
  forwarding?: { interface: 'udp' | 'tcp' | 'tls'; target: string; queued: number; sent: number; dropped: number; tooLarge: number; retrying: boolean; connected: boolean };
}

/** The server certificate as `GET /about` shows it. */
export interface AboutCertificate {
  validFrom: string;
  validTo: string;
  /** SHA-256, colon-separated hex, as a browser shows it. */
  fingerprint256: string;
  source: 'configured' | 'generated' | 'uploaded';
}

/** One listening port of the service. `api` is the management API and console; `transactions` take client requests. */
export interface ServicePort {
  purpose: 'api' | 'transactions' | 'audit';
  protocol: 'http' | 'https' | 'tcp' | 'tls' | 'udp';
  port: number;
}

export interface HealthAnswer {
  /**
   * `unavailable` (503) while the store is not ready, while its database server does not answer, or while new
   * transactions are refused for lack of disk space.
   */
  status: 'ok' | 'unavailable';
  /** `unreachable`: since when (ISO 8601) and why the PostgreSQL server has not answered, while it does not. */
  store: { engine: string; state: string; problems: number; unreachable?: { since: string; error: string } };
  uptimeSeconds: number;
  disk?: DiskSpace;
  /** Problems that do not stop transactions (low disk space, a failing log file), in words. */
  warnings: string[];
}
