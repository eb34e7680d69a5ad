/**
 * The certificate expiry job: the server certificate and each trusted CA within `keystore.expiryWarningDays` of
 * expiry are announced through the notification outbox, to the members of `keystore.expiryAlertGroups` by their
 * chosen method, or to every admin by email when no group is named. The outbox key makes it once a day per
 * certificate and recipient, however often the job runs and across restarts.
 */
import type { Logger } from 'pino';
import type { Outbox, OutgoingMessage } from '../notify/outbox.js';
import type { Collection } from '../storage/store.js';
import type { ContactGroupRecord, NotificationRecord, UserRecord } from '../storage/records.js';
import { expandRecipients } from '../domain/alerts/alert-rules.js';
import type { RecipientGroup, RecipientUser } from '../domain/alerts/alert-rules.js';
import { ADMIN_GROUP } from '../domain/access/permissions.js';
import { expiringCertificates, expiryWarningKey, expiryWarningText } from '../domain/alerts/certificate-expiry.js';
import type { WatchedCertificate } from '../domain/alerts/certificate-expiry.js';
import type { Keystore } from './keystore.js';
import { parseCertificate } from './certificate-info.js';

export const CERTIFICATE_EXPIRY_JOB = 'certificate-expiry';

export interface ExpiryJobDeps {
  keystore: Pick<Keystore, 'certificate' | 'listCAs'>;
  users: Collection<UserRecord>;
  contactGroups: Collection<ContactGroupRecord>;
  outbox: Outbox;
  warningDays: number;
  /** Contact group names; empty: the admins. */
  groups: readonly string[];
  instance: string;
  logger: Logger;
  now?: () => Date;
  everyMs?: number;
}

/** The certificates the job watches (and the needs-attention list): the one served and every trusted CA. */
export function watched(keystore: ExpiryJobDeps['keystore']): WatchedCertificate[] {
  const served = parseCertificate(keystore.certificate().cert);
  const commonName = (served.subject.split('\n').find((l) => l.startsWith('CN=')) ?? '').slice(3);
  return [
    { role: 'server', commonName, fingerprint256: served.fingerprint256, validTo: new Date(served.validTo) },
    ...keystore.listCAs().map((ca) => ({ role: 'trusted CA' as const, commonName: ca.commonName, fingerprint256: ca.fingerprint256, validTo: new Date(ca.validity.end) })),
  ];
}

/** One run: the messages recorded (already-sent ones of the day are skipped by their key). */
export async function runExpiryCheck(deps: ExpiryJobDeps): Promise<NotificationRecord[]> {
  const now = (deps.now ?? (() => new Date()))();
  const expiring = expiringCertificates(watched(deps.keystore), now, deps.warningDays);
  if (expiring.length === 0) return [];
  const users = await deps.users.find({});
  const userMap = new Map<string, RecipientUser>(users.map((u) => [u._id, { email: u.email, ...(u.msisdn === undefined ? {} : { msisdn: u.msisdn }) }]));
  let rule: { users: { user: string; method: 'email'; maxAlerts: 'no max' }[]; groups: string[] };
  const groupMap = new Map<string, RecipientGroup>();
  if (deps.groups.length === 0) {
    rule = { users: users.filter((u) => u.groups.includes(ADMIN_GROUP)).map((u) => ({ user: u.email, method: 'email', maxAlerts: 'no max' })), groups: [] };
  } else {
    const groups = await deps.contactGroups.find({ group: { $in: [...deps.groups] } });
    for (const g of groups) groupMap.set(g._id, { _id: g._id, group: g.group, users: g.users, ...(g.external === undefined ? {} : { external: g.external }) });
    const missing = deps.groups.filter((name) => !groups.some((g) => g.group === name));
    if (missing.length > 0) deps.logger.warn({ groups: missing }, 'keystore.expiryAlertGroups names contact groups that do not exist');
    rule = { users: [], groups: groups.map((g) => g._id) };
  }
  const { recipients, skipped } = expandRecipients(rule, groupMap, userMap);
  for (const s of skipped) deps.logger.warn({ user: s.user, reason: s.reason }, 'a certificate expiry recipient was left out');
  const messages: OutgoingMessage[] = [];
  for (const cert of expiring) {
    const { subject, line } = expiryWarningText(cert, deps.instance);
    for (const r of recipients) {
      messages.push({
        kind: 'alert',
        method: r.method,
        to: r.address,
        user: r.user,
        subject,
        ...(r.method === 'sms' ? { sms: subject } : { text: line }),
        key: expiryWarningKey(cert.fingerprint256, now, r.method, r.address),
      });
    }
    deps.logger.warn({ role: cert.role, commonName: cert.commonName, validTo: cert.validTo, recipients: recipients.length }, 'a certificate is close to expiry');
  }
  return deps.outbox.enqueue(messages);
}

/** The job for the registry: hourly by default, and at start. */
export function certificateExpiryJob(deps: ExpiryJobDeps): { name: string; everyMs: number; runAtStart: boolean; run: () => Promise<void> } {
  return { name: CERTIFICATE_EXPIRY_JOB, everyMs: deps.everyMs ?? 60 * 60_000, runAtStart: true, run: async () => void (await runExpiryCheck(deps)) };
}
