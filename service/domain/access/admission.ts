/**
 * Who may open one more connection: pure arithmetic over the counts a listener keeps. One sender (one address) may
 * hold only its share of a listener, so it can never lock out the others; the whole process holds fewer sockets than
 * its file-descriptor limit, so a flood ends in refused connections instead of EMFILE for everyone.
 */

/**
 * Why a connection was refused or cut off (or, not_hl7, an MLLP frame refused; too_large and bad_frame, a message over
 * `tcp.maxMessageBytes` or unreadable framing, which end the connection); the Prometheus label and the log say the same.
 */
export const REFUSAL_REASONS = ['per_address', 'total', 'listener_full', 'silent', 'head_timeout', 'frame_timeout', 'handshake_timeout', 'not_hl7', 'too_large', 'bad_frame'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface AdmissionCounts {
  /** Connections this address holds on this listener now. */
  fromAddress: number;
  /** Inbound connections the process holds now, over every listener. */
  total: number;
}

export interface AdmissionLimits {
  perAddress: number;
  total: number;
}

/** Admit, or the reason to refuse. The process-wide cap is judged first: it protects everyone. */
export function admissionOf(counts: AdmissionCounts, limits: AdmissionLimits): 'admit' | 'total' | 'per_address' {
  if (counts.total >= limits.total) return 'total';
  if (counts.fromAddress >= limits.perAddress) return 'per_address';
  return 'admit';
}

/** The address a limit counts by: an IPv4 address mapped into IPv6 counts as the IPv4 address it is. */
export function addressKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** The descriptors kept back from inbound connections: store files, body files, logs, outbound sockets. */
export function reservedDescriptors(softLimit: number): number {
  return Math.max(256, Math.floor(softLimit / 4));
}

/** When the descriptor limit cannot be read: a cap that suits the usual 65,536 limit of a service. */
export const UNKNOWN_LIMIT_CAP = 8192;

/**
 * The process-wide connection cap for a soft RLIMIT_NOFILE (null when unknown or unlimited): the limit less the
 * reserve, never below 64, so a tiny limit still serves a few senders (and fails loudly elsewhere).
 */
export function connectionCapOf(softLimit: number | null): number {
  if (softLimit === null || !Number.isFinite(softLimit)) return UNKNOWN_LIMIT_CAP;
  return Math.max(64, softLimit - reservedDescriptors(softLimit));
}

/**
 * Whether a refusal is logged: once per key (listener, address, reason) per window. `lastLoggedAt` is when that key
 * last logged, undefined when never.
 */
export function shouldLogRefusal(lastLoggedAt: number | undefined, now: number, windowMs: number): boolean {
  return lastLoggedAt === undefined || now - lastLoggedAt >= windowMs;
}
