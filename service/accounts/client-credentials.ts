/**
 * Client credentials: password verification (scrypt, or OpenHIM's salted sha512/sha256 kept from a migration),
 * custom token digests, certificate parsing and fingerprints, and turning an API body's secrets into stored fields.
 */
import { createHash, timingSafeEqual, X509Certificate } from 'node:crypto';
import type { ClientAuthenticationType } from '../contracts/api.js';
import type { AppError } from '../errors.js';
import { refusal } from '../refusals.js';
import type { ClientRecord } from '../storage/records.js';
import { hashPassword, verifyPassword } from './passwords.js';

/** The digest stored for a custom token: sha256 hex, so the token can be looked up but not read back. */
export function customTokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Checks a basic-auth password against a client's stored hash, in constant time; no hash never matches. */
export async function verifyClientPassword(client: Pick<ClientRecord, 'passwordHash' | 'passwordAlgorithm' | 'passwordSalt'>, password: string): Promise<boolean> {
  const algorithm = client.passwordAlgorithm;
  if ((algorithm === 'sha512' || algorithm === 'sha256') && client.passwordHash !== undefined && client.passwordSalt !== undefined) {
    // OpenHIM core computes hex(hash(password + salt)) for clients.
    const actual = Buffer.from(createHash(algorithm).update(password, 'utf8').update(client.passwordSalt, 'utf8').digest('hex'), 'utf8');
    const expected = Buffer.from(client.passwordHash.toLowerCase(), 'utf8');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
  // scrypt, or no usable hash: verifyPassword costs the same time either way, so timing does not reveal which.
  return verifyPassword(password, algorithm === 'scrypt' ? client.passwordHash : null);
}

export interface ParsedCertificate {
  /** The certificate alone, re-encoded: anything pasted around it (such as a private key) is not kept. */
  certPem: string;
  /** SHA-256, the fingerprint Junction registers a PEM certificate by. */
  certFingerprint: string;
  /** SHA-1, which OpenHIM's console sends; only to check a fingerprint given together with the certificate. */
  certFingerprint1: string;
}

/** Parses one PEM X.509 certificate; null when the text is not one. */
export function parseCertificate(pem: string): ParsedCertificate | null {
  try {
    const x509 = new X509Certificate(pem);
    return { certPem: x509.toString(), certFingerprint: x509.fingerprint256, certFingerprint1: x509.fingerprint };
  } catch {
    return null;
  }
}

/**
 * A certificate fingerprint in the one form Junction stores and compares: upper-case hex pairs joined by colons, as
 * node:crypto prints them. Callers may send either case, with or without colons (OpenHIM's keystore shows SHA-1 with
 * colons; `openssl x509 -fingerprint` prints the same).
 */
export function normaliseFingerprint(text: string): string {
  const hex = text.replaceAll(':', '').toUpperCase();
  return (hex.match(/../g) ?? []).join(':');
}

/** The fingerprints a TLS peer's certificate has: SHA-256 always, SHA-1 when the transport read it. */
export interface PeerFingerprints {
  fingerprint256: string;
  fingerprint?: string;
}

/**
 * True when a registered fingerprint is the peer certificate's, by the digest it was registered with (SHA-1 or
 * SHA-256, told apart by length). Compared in constant time, although a fingerprint is not a secret: the handshake
 * already proved the peer holds the certificate's key, and this only decides which client that is.
 */
export function fingerprintMatches(registered: string, peer: PeerFingerprints): boolean {
  const stored = normaliseFingerprint(registered);
  const presented = stored.length === SHA1_FINGERPRINT_LENGTH ? peer.fingerprint : peer.fingerprint256;
  if (presented === undefined) return false;
  const a = Buffer.from(stored, 'utf8');
  const b = Buffer.from(normaliseFingerprint(presented), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

// 20 bytes as hex pairs joined by colons.
const SHA1_FINGERPRINT_LENGTH = 59;

/** The subject CN of a stored certificate, shown so admins can compare it with the client's domain. */
export function certificateSubjectCN(pem: string): string | undefined {
  try {
    const subject = new X509Certificate(pem).subject;
    const line = subject.split('\n').find((l) => l.startsWith('CN='));
    return line?.slice(3);
  } catch {
    return undefined;
  }
}

/**
 * The secrets an API body may carry, once '' has been read as "not sent" (routes do that: an empty form field is not
 * a request to delete a credential). null removes that credential on update.
 */
export interface ClientSecretsInput {
  password?: string | null;
  /** Without passwordHash this is the answer's own field sent back, and ignored. */
  passwordAlgorithm?: 'sha512' | 'sha256' | 'scrypt' | null;
  /** null removes the password, as in OpenHIM. */
  passwordHash?: string | null;
  passwordSalt?: string | null;
  certificate?: string | null;
  certFingerprint?: string | null;
  customTokenID?: string | null;
}

type SecretField = 'passwordHash' | 'passwordAlgorithm' | 'passwordSalt' | 'certPem' | 'certFingerprint' | 'customTokenHash';

export interface SecretChanges {
  set: Partial<Pick<ClientRecord, SecretField>>;
  unset: SecretField[];
}

const HEX_LENGTH = { sha512: 128, sha256: 64 } as const;

function invalid(path: string, message: string): AppError {
  return refusal('VALIDATION_FAILED', { path, message });
}

/** An OpenHIM hash imported as given; null when the body carries none (an algorithm alone is the answer echoed back). */
function prehashed(input: ClientSecretsInput): Pick<ClientRecord, 'passwordHash' | 'passwordAlgorithm' | 'passwordSalt'> | null {
  const { passwordAlgorithm, passwordHash, passwordSalt } = input;
  if (passwordHash === undefined || passwordHash === null) return null;
  if (passwordAlgorithm !== 'sha512' && passwordAlgorithm !== 'sha256') {
    throw invalid('body.passwordAlgorithm', 'must be sha512 or sha256 with passwordHash: give passwordAlgorithm, passwordHash and passwordSalt, or a plain password instead');
  }
  if (passwordSalt === undefined || passwordSalt === null) {
    throw invalid('body.passwordSalt', 'is required with passwordHash: give passwordAlgorithm, passwordHash and passwordSalt, or a plain password instead');
  }
  if (input.password !== undefined && input.password !== null) throw invalid('body.password', 'cannot be given together with passwordHash: give one or the other');
  if (passwordHash.length !== HEX_LENGTH[passwordAlgorithm]) {
    throw invalid('body.passwordHash', `must be ${HEX_LENGTH[passwordAlgorithm]} hex digits for ${passwordAlgorithm}`);
  }
  return { passwordAlgorithm, passwordHash: passwordHash.toLowerCase(), passwordSalt };
}

/**
 * The certificate fields: a PEM certificate is parsed and registered by its SHA-256 fingerprint; a fingerprint alone
 * (OpenHIM's console picks a trusted certificate and sends its fingerprint) is registered as given. The fingerprint
 * a client already has, sent back, changes nothing.
 */
function certificateChanges(input: ClientSecretsInput, current: Pick<ClientRecord, 'certFingerprint'> | undefined, changes: SecretChanges): void {
  if (input.certificate === null || input.certFingerprint === null) {
    changes.unset.push('certPem', 'certFingerprint');
    return;
  }
  const fingerprint = input.certFingerprint === undefined ? undefined : normaliseFingerprint(input.certFingerprint);
  if (input.certificate !== undefined) {
    const parsed = parseCertificate(input.certificate);
    if (parsed === null) throw invalid('body.certificate', 'must be a PEM X.509 certificate (-----BEGIN CERTIFICATE----- ...)');
    if (fingerprint !== undefined && fingerprint !== parsed.certFingerprint && fingerprint !== parsed.certFingerprint1) {
      throw invalid('body.certFingerprint', 'is not the fingerprint of the certificate given with it: give one or the other');
    }
    changes.set.certPem = parsed.certPem;
    changes.set.certFingerprint = parsed.certFingerprint;
    return;
  }
  if (fingerprint === undefined || (current?.certFingerprint !== undefined && normaliseFingerprint(current.certFingerprint) === fingerprint)) return;
  changes.set.certFingerprint = fingerprint;
  // A PEM kept from before belongs to another certificate now.
  changes.unset.push('certPem');
}

/** Turns the secrets of a create or update body into stored fields, hashing what must not be kept in clear. */
export async function secretChanges(input: ClientSecretsInput, current?: Pick<ClientRecord, 'certFingerprint'>): Promise<SecretChanges> {
  const changes: SecretChanges = { set: {}, unset: [] };
  const imported = prehashed(input);
  if (imported !== null) {
    changes.set = { ...imported };
  } else if (input.password === null || input.passwordHash === null) {
    changes.unset.push('passwordHash', 'passwordAlgorithm', 'passwordSalt');
  } else if (input.password !== undefined) {
    changes.set = { passwordHash: await hashPassword(input.password), passwordAlgorithm: 'scrypt' };
    // A salt left from an imported OpenHIM hash would be meaningless next to scrypt.
    changes.unset.push('passwordSalt');
  }
  certificateChanges(input, current, changes);
  if (input.customTokenID === null) changes.unset.push('customTokenHash');
  else if (input.customTokenID !== undefined) changes.set.customTokenHash = customTokenDigest(input.customTokenID);
  return changes;
}

/** The switches of the `authentication` settings that turn client authentication types on. */
export interface ClientAuthSwitches {
  enableMutualTLSAuthentication: boolean;
  enableBasicAuthentication: boolean;
  enableCustomTokenAuthentication: boolean;
  enableJWTAuthentication: boolean;
}

/** The client authentication types that are on, in OpenHIM's names and order (`GET /authentication/types`). */
export function clientAuthenticationTypes(settings: ClientAuthSwitches): ClientAuthenticationType[] {
  const types: [boolean, ClientAuthenticationType][] = [
    [settings.enableMutualTLSAuthentication, 'mutual-tls-auth'],
    [settings.enableBasicAuthentication, 'basic-auth'],
    [settings.enableCustomTokenAuthentication, 'custom-token-auth'],
    [settings.enableJWTAuthentication, 'jwt-auth'],
  ];
  return types.filter(([on]) => on).map(([, name]) => name);
}
