/** Which certificates are close enough to expiry to warn about, and the one-a-day key of each warning. */

export interface WatchedCertificate {
  /** What it is, for the message: "the server certificate" or "the trusted CA certificate". */
  role: 'server' | 'trusted CA';
  commonName: string;
  fingerprint256: string;
  validTo: Date;
}

export interface ExpiringCertificate extends WatchedCertificate {
  /** Whole days left (0 on the last day; negative once expired). */
  daysLeft: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The certificates that expire within `warningDays` of `now` (expired ones included), soonest first. */
export function expiringCertificates(certificates: readonly WatchedCertificate[], now: Date, warningDays: number): ExpiringCertificate[] {
  return certificates
    .map((c) => ({ ...c, daysLeft: Math.floor((c.validTo.getTime() - now.getTime()) / DAY_MS) }))
    .filter((c) => c.validTo.getTime() - now.getTime() <= warningDays * DAY_MS)
    .sort((a, b) => a.validTo.getTime() - b.validTo.getTime());
}

/** The outbox key that makes a warning one per certificate, recipient and (UTC) day. */
export function expiryWarningKey(fingerprint256: string, now: Date, method: string, address: string): string {
  return `certificate-expiry:${fingerprint256}:${now.toISOString().slice(0, 10)}:${method}:${address.toLowerCase()}`;
}

/** The subject and one-line text of a warning. */
export function expiryWarningText(cert: ExpiringCertificate, instance: string): { subject: string; line: string } {
  const when = cert.daysLeft < 0 ? `expired on ${cert.validTo.toISOString().slice(0, 10)}` : cert.daysLeft === 0 ? 'expires today' : `expires in ${cert.daysLeft} day${cert.daysLeft === 1 ? '' : 's'} (${cert.validTo.toISOString().slice(0, 10)})`;
  const subject = `${instance}: ${cert.role} certificate ${cert.commonName || cert.fingerprint256.slice(0, 17)} ${when}`;
  const line = `The ${cert.role} certificate "${cert.commonName}" (SHA-256 ${cert.fingerprint256}) ${when}. Replace it on the Certificates page of the Junction console.`;
  return { subject, line };
}
