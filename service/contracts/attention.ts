/**
 * What an administrator must act on (`GET /attention`, issue 35): each problem the service can see for itself, with
 * how bad it is, one sentence, and where to fix it. The console shows it as a strip at the top of the dashboard.
 * Import with `import type`, except the two closed lists.
 */

/** The kinds of problem, one source each (service/attention/sources.ts). */
export const ATTENTION_KINDS = [
  'email-not-set-up',
  'sms-not-set-up',
  'messages-failed',
  'channel-refusing',
  'channel-admits-nobody',
  'listener-failed',
  'mediator-offline',
  'certificate-expiring',
  'backups-off',
  'backup-failed',
  'disk-low',
  'auto-retry-growing',
  'database-unreachable',
  'search-index-behind',
  'check-failed',
] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

/** `error`: something is lost or refused now; `warning`: it will be, or may be; `info`: worth knowing. Worst first. */
export const ATTENTION_SEVERITIES = ['error', 'warning', 'info'] as const;
export type AttentionSeverity = (typeof ATTENTION_SEVERITIES)[number];

/** Where to fix it: a console path, the configuration setting, or both. */
export interface AttentionFix {
  /** A console path, e.g. `/channels/<id>`; the console links to it. */
  path?: string;
  /** The configuration setting (config/schema.ts) that decides it, e.g. `email.smtp.host`. */
  setting?: string;
}

export interface AttentionItem {
  kind: AttentionKind;
  severity: AttentionSeverity;
  /** One sentence, for a person. */
  message: string;
  fix: AttentionFix;
  /** The channel it is about, when it is about one (non-admins see only these, for channels they may view). */
  channel?: { _id: string; name: string };
  /** How many things it stands for (failed messages, refusals, queued retries...), when it counts. */
  count?: number;
}

/** `GET /attention`: worst first; `checkedAt` is when the sources were read. */
export interface AttentionList {
  items: AttentionItem[];
  checkedAt: string;
  /**
   * For admins: why email and SMS cannot be sent (the missing setting), absent when they can; the console's alert
   * editor warns with it whether or not anything sends by them yet.
   */
  messaging?: { email?: string; sms?: string };
}
