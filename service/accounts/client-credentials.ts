/**
 * Client credentials: password verification (scrypt, or OpenHIM's salted sha512/sha256 kept from a migration),
 * custom token digests, certificate parsing, and turning an API body's secrets into stored fields.
 */
import { createHash, timingSafeEqual, X509Certificate } from 'node:crypto';
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
  certFingerprint: string;
}

/** Parses one PEM X.509 certificate; null when the text is not one. */
export function parseCertificate(pem: string): ParsedCertificate | null {
  try {
    const x509 = new X509Certificate(pem);
    return { certPem: x509.toString(), certFingerprint: x509.fingerprint256 };
  } catch {
    return null;
  }
}

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

/** The secrets an API body may carry; null (on update) removes that credential. */
export interface ClientSecretsInput {
  password?: string | null;
  passwordAlgorithm?: 'sha512' | 'sha256';
  passwordHash?: string;
  passwordSalt?: string;
  certificate?: string | null;
  customToken?: string | null;
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

function prehashed(input: ClientSecretsInput): Pick<ClientRecord, 'passwordHash' | 'passwordAlgorithm' | 'passwordSalt'> | null {
  const { passwordAlgorithm, passwordHash, passwordSalt } = input;
  const given = [passwordAlgorithm, passwordHash, passwordSalt].filter((v) => v !== undefined).length;
  if (given === 0) return null;
  if (passwordAlgorithm === undefined || passwordHash === undefined || passwordSalt === undefined) {
    const missing = passwordAlgorithm === undefined ? 'passwordAlgorithm' : passwordHash === undefined ? 'passwordHash' : 'passwordSalt';
    throw invalid(`body.${missing}`, 'is required with passwordHash, passwordAlgorithm and passwordSalt: give all three, or a plain password instead');
  }
  if (input.password !== undefined) throw invalid('body.password', 'cannot be given together with passwordHash: give one or the other');
  if (passwordHash.length !== HEX_LENGTH[passwordAlgorithm]) {
    throw invalid('body.passwordHash', `must be ${HEX_LENGTH[passwordAlgorithm]} hex digits for ${passwordAlgorithm}`);
  }
  return { passwordAlgorithm, passwordHash: passwordHash.toLowerCase(), passwordSalt };
}

/** Turns the secrets of a create or update body into stored fields, hashing what must not be kept in clear. */
export async function secretChanges(input: ClientSecretsInput): Promise<SecretChanges> {
  const changes: SecretChanges = { set: {}, unset: [] };
  const imported = prehashed(input);
  if (imported !== null) {
    changes.set = { ...imported };
  } else if (input.password === null) {
    changes.unset.push('passwordHash', 'passwordAlgorithm', 'passwordSalt');
  } else if (input.password !== undefined) {
    changes.set = { passwordHash: await hashPassword(input.password), passwordAlgorithm: 'scrypt' };
    // A salt left from an imported OpenHIM hash would be meaningless next to scrypt.
    changes.unset.push('passwordSalt');
  }
  if (input.certificate === null) {
    changes.unset.push('certPem', 'certFingerprint');
  } else if (input.certificate !== undefined) {
    const parsed = parseCertificate(input.certificate);
    if (parsed === null) throw invalid('body.certificate', 'must be a PEM X.509 certificate (-----BEGIN CERTIFICATE----- ...)');
    Object.assign(changes.set, parsed);
  }
  if (input.customToken === null) changes.unset.push('customTokenHash');
  else if (input.customToken !== undefined) changes.set.customTokenHash = customTokenDigest(input.customToken);
  return changes;
}
