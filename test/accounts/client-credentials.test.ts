import { createHash, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certificateSubjectCN, customTokenDigest, fingerprintMatches, normaliseFingerprint, parseCertificate, secretChanges, verifyClientPassword } from '../../service/accounts/client-credentials.js';
import { hashPassword } from '../../service/accounts/passwords.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';

// What OpenHIM core stores for a client: hex(hash(password + salt)).
function openhimHash(algorithm: 'sha512' | 'sha256', password: string, salt: string): string {
  return createHash(algorithm).update(password + salt).digest('hex');
}

describe('verifyClientPassword', () => {
  it('checks scrypt hashes', async () => {
    const client = { passwordAlgorithm: 'scrypt' as const, passwordHash: await hashPassword('lab-system-secret') };
    expect(await verifyClientPassword(client, 'lab-system-secret')).toBe(true);
    expect(await verifyClientPassword(client, 'lab-system-secreT')).toBe(false);
  });

  it('checks hashes imported from OpenHIM (sha512 and sha256, salted after the password)', async () => {
    for (const algorithm of ['sha512', 'sha256'] as const) {
      const client = { passwordAlgorithm: algorithm, passwordSalt: 'a1b2c3', passwordHash: openhimHash(algorithm, 'openhim-pass', 'a1b2c3') };
      expect(await verifyClientPassword(client, 'openhim-pass')).toBe(true);
      expect(await verifyClientPassword({ ...client, passwordHash: client.passwordHash.toUpperCase() }, 'openhim-pass')).toBe(true);
      expect(await verifyClientPassword(client, 'openhim-pasS')).toBe(false);
      // The salt goes after the password, not before.
      expect(await verifyClientPassword({ ...client, passwordHash: createHash(algorithm).update('a1b2c3openhim-pass').digest('hex') }, 'openhim-pass')).toBe(false);
    }
  });

  it('never matches a client without a usable hash', async () => {
    expect(await verifyClientPassword({}, 'anything')).toBe(false);
    expect(await verifyClientPassword({ passwordAlgorithm: 'sha512', passwordHash: openhimHash('sha512', 'x', 's') }, 'x')).toBe(false);
    expect(await verifyClientPassword({ passwordHash: await hashPassword('no-algorithm') }, 'no-algorithm')).toBe(false);
  });
});

describe('customTokenDigest', () => {
  it('is the sha256 hex of the token, and differs per token', () => {
    expect(customTokenDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(customTokenDigest('token-one-123456')).not.toBe(customTokenDigest('token-two-123456'));
  });
});

describe('certificates and secret changes', () => {
  const pair = generateSelfSigned('lab.clinic.example');

  it('parses a PEM certificate, keeping only the certificate', () => {
    const parsed = parseCertificate(`${pair.cert}\n${pair.key}`);
    expect(parsed?.certFingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(parsed?.certPem).toContain('BEGIN CERTIFICATE');
    expect(parsed?.certPem).not.toContain('PRIVATE KEY');
    expect(certificateSubjectCN(parsed?.certPem ?? '')).toBe('lab.clinic.example');
    expect(parseCertificate('not a certificate')).toBeNull();
  });

  it('hashes a plain password, keeps an imported hash, digests the token and removes credentials given null', async () => {
    const plain = await secretChanges({ password: 'plain-password', customTokenID: 'a-long-custom-token', certificate: pair.cert });
    expect(plain.set.passwordAlgorithm).toBe('scrypt');
    expect(plain.set.passwordHash).toMatch(/^scrypt\$/);
    expect(plain.set.customTokenHash).toBe(customTokenDigest('a-long-custom-token'));
    expect(plain.set.certFingerprint).toBe(parseCertificate(pair.cert)?.certFingerprint);

    const hash = openhimHash('sha256', 'pw', 'salt');
    const imported = await secretChanges({ passwordAlgorithm: 'sha256', passwordHash: hash.toUpperCase(), passwordSalt: 'salt' });
    expect(imported.set).toEqual({ passwordAlgorithm: 'sha256', passwordHash: hash, passwordSalt: 'salt' });

    const removed = await secretChanges({ password: null, certificate: null, customTokenID: null });
    expect(removed.set).toEqual({});
    expect(removed.unset.sort()).toEqual(['certFingerprint', 'certPem', 'customTokenHash', 'passwordAlgorithm', 'passwordHash', 'passwordSalt']);
  });

  it('registers a certificate by a fingerprint in any case, with or without colons, and keeps the PEM only for its own', async () => {
    const x509 = new X509Certificate(pair.cert);
    const bare = x509.fingerprint.replaceAll(':', '').toLowerCase();
    const byFingerprint = await secretChanges({ certFingerprint: bare });
    expect(byFingerprint.set).toEqual({ certFingerprint: x509.fingerprint });
    expect(byFingerprint.unset).toEqual(['certPem']);
    // The fingerprint a client already has, sent back, changes nothing.
    expect(await secretChanges({ certFingerprint: x509.fingerprint256.toLowerCase() }, { certFingerprint: x509.fingerprint256 })).toEqual({ set: {}, unset: [] });
    // With the certificate, its SHA-1 or SHA-256 may come along; another fingerprint is refused.
    expect((await secretChanges({ certificate: pair.cert, certFingerprint: x509.fingerprint })).set.certFingerprint).toBe(x509.fingerprint256);
    await expect(secretChanges({ certificate: pair.cert, certFingerprint: 'AB'.repeat(20) })).rejects.toMatchObject({ details: [{ path: 'body.certFingerprint' }] });
    expect(normaliseFingerprint('ab:cd:EF')).toBe('AB:CD:EF');
  });

  it('matches a registered fingerprint against the peer by the digest it was registered with', () => {
    const x509 = new X509Certificate(pair.cert);
    const peer = { fingerprint256: x509.fingerprint256, fingerprint: x509.fingerprint };
    expect(fingerprintMatches(x509.fingerprint.toLowerCase(), peer)).toBe(true);
    expect(fingerprintMatches(x509.fingerprint256, peer)).toBe(true);
    expect(fingerprintMatches(x509.fingerprint, { fingerprint256: x509.fingerprint256 })).toBe(false);
    expect(fingerprintMatches('AB'.repeat(32), peer)).toBe(false);
  });

  it('refuses incomplete or mixed password forms and bad certificates, naming the field', async () => {
    await expect(secretChanges({ passwordAlgorithm: 'sha512', passwordHash: 'ab' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'body.passwordSalt' }] });
    await expect(secretChanges({ passwordAlgorithm: 'sha256', passwordHash: 'ab', passwordSalt: 's' })).rejects.toMatchObject({ details: [{ path: 'body.passwordHash' }] });
    await expect(
      secretChanges({ password: 'plain-password', passwordAlgorithm: 'sha256', passwordHash: openhimHash('sha256', 'a', 'b'), passwordSalt: 'b' }),
    ).rejects.toMatchObject({ details: [{ path: 'body.password' }] });
    await expect(secretChanges({ certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' })).rejects.toMatchObject({ details: [{ path: 'body.certificate' }] });
  });
});
