import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ClientAuthenticator } from '../../service/pipeline/authenticate.js';
import type { ClientAuthSettings } from '../../service/pipeline/authenticate.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { Store } from '../../service/storage/store.js';
import type { ClientRecord } from '../../service/storage/records.js';
import { hashPassword } from '../../service/accounts/passwords.js';
import { customTokenDigest, parseCertificate } from '../../service/accounts/client-credentials.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { tempDir } from '../helpers/junction.js';

const SECRET = 'a-shared-jwt-secret-of-enough-length';
const allOn: ClientAuthSettings = {
  enableMutualTLSAuthentication: true,
  enableBasicAuthentication: true,
  enableCustomTokenAuthentication: true,
  enableJWTAuthentication: true,
  jwt: { secretOrPublicKey: SECRET, algorithms: ['HS256'], audience: ['junction'], issuer: 'clinic-idp' },
};

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('client authentication on the transaction ports', () => {
  let store: Store;
  let dir: string;
  const labCert = generateSelfSigned('lab.clinic.example');
  const strangerCert = generateSelfSigned('stranger.example');
  const radiologyCert = generateSelfSigned('radiology.clinic.example');

  async function client(fields: Partial<ClientRecord> & { clientID: string }): Promise<ClientRecord> {
    const now = new Date();
    return store.clients.insert({ name: fields.clientID, roles: [], createdAt: now, updatedAt: now, ...fields });
  }

  beforeAll(async () => {
    dir = await tempDir();
    store = createNedbStore({ dataDir: dir, logger: pino({ level: 'silent' }) });
    await store.open();
    await client({ clientID: 'lab', clientDomain: 'lab.clinic.example', passwordHash: await hashPassword('lab-password-1'), passwordAlgorithm: 'scrypt', customTokenHash: customTokenDigest('lab-custom-token-123456'), certPem: labCert.cert, certFingerprint: parseCertificate(labCert.cert)?.certFingerprint });
    await client({ clientID: 'pharmacy', clientDomain: 'pharmacy.clinic.example' });
    // Registered as OpenHIM's console does: by the certificate's SHA-1 fingerprint, no PEM.
    await client({ clientID: 'radiology', clientDomain: 'radiology.clinic.example', certFingerprint: new X509Certificate(radiologyCert.cert).fingerprint });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const auth = (settings: ClientAuthSettings = allOn) => new ClientAuthenticator({ clients: store.clients, settings });

  it('treats a request without credentials as anonymous', async () => {
    expect(await auth().authenticate({})).toEqual({ outcome: 'anonymous' });
  });

  it('accepts and refuses Basic credentials', async () => {
    const ok = await auth().authenticate({ authorization: basic('lab', 'lab-password-1') });
    expect(ok).toMatchObject({ outcome: 'authenticated', method: 'basic', client: { clientID: 'lab' } });
    const authenticator = auth();
    await authenticator.authenticate({ authorization: basic('lab', 'lab-password-1') });
    // The cached credential must not let a wrong password through.
    expect(await authenticator.authenticate({ authorization: basic('lab', 'wrong-password') })).toMatchObject({ outcome: 'refused', method: 'basic' });
    expect(await auth().authenticate({ authorization: basic('nobody', 'x') })).toMatchObject({ outcome: 'refused', claimed: 'nobody' });
    expect(await auth().authenticate({ authorization: 'Basic %%%' })).toMatchObject({ outcome: 'refused', reason: 'malformed Basic credentials' });
    expect(await auth({ ...allOn, enableBasicAuthentication: false }).authenticate({ authorization: basic('lab', 'lab-password-1') })).toMatchObject({
      outcome: 'refused',
      method: 'unsupported',
    });
  });

  it('accepts and refuses custom tokens', async () => {
    expect(await auth().authenticate({ authorization: 'Custom lab-custom-token-123456' })).toMatchObject({ outcome: 'authenticated', method: 'custom-token' });
    expect(await auth().authenticate({ authorization: 'Custom not-the-token' })).toMatchObject({ outcome: 'refused', method: 'custom-token' });
    expect(await auth({ ...allOn, enableCustomTokenAuthentication: false }).authenticate({ authorization: 'Custom lab-custom-token-123456' })).toMatchObject({
      outcome: 'refused',
    });
  });

  it('accepts a JWT whose sub is a clientID, with the configured algorithm, audience and issuer only', async () => {
    const key = new TextEncoder().encode(SECRET);
    const sign = (claims: { sub?: string; aud?: string; iss?: string }, alg = 'HS256') => {
      let jwt = new SignJWT({}).setProtectedHeader({ alg }).setIssuedAt().setExpirationTime('5m');
      if (claims.sub !== undefined) jwt = jwt.setSubject(claims.sub);
      if (claims.aud !== undefined) jwt = jwt.setAudience(claims.aud);
      if (claims.iss !== undefined) jwt = jwt.setIssuer(claims.iss);
      return jwt.sign(key);
    };
    const good = await sign({ sub: 'lab', aud: 'junction', iss: 'clinic-idp' });
    expect(await auth().authenticate({ authorization: `Bearer ${good}` })).toMatchObject({ outcome: 'authenticated', method: 'jwt', client: { clientID: 'lab' } });
    for (const bad of [
      await sign({ sub: 'lab', aud: 'other', iss: 'clinic-idp' }),
      await sign({ sub: 'lab', aud: 'junction', iss: 'evil' }),
      await sign({ sub: 'lab', aud: 'junction', iss: 'clinic-idp' }, 'HS512'),
      await sign({ sub: 'ghost', aud: 'junction', iss: 'clinic-idp' }),
      await sign({ aud: 'junction', iss: 'clinic-idp' }),
      `${good.slice(0, -4)}AAAA`,
    ]) {
      expect(await auth().authenticate({ authorization: `Bearer ${bad}` })).toMatchObject({ outcome: 'refused', method: 'jwt' });
    }
  });

  it('verifies RS256 JWTs against a configured PEM public key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const settings = { ...allOn, jwt: { secretOrPublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), algorithms: ['RS256'], audience: [], issuer: '' } };
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'RS256' }).setSubject('lab').sign(privateKey);
    expect(await auth(settings).authenticate({ authorization: `Bearer ${token}` })).toMatchObject({ outcome: 'authenticated' });
  });

  it('accepts a registered client certificate whose CN equals the client domain, and refuses others', async () => {
    const lab = parseCertificate(labCert.cert);
    const registered = { fingerprint256: lab?.certFingerprint ?? '', subjectCN: 'lab.clinic.example', authorized: false };
    expect(await auth().authenticate({ peer: registered })).toMatchObject({ outcome: 'authenticated', method: 'mutual-tls', client: { clientID: 'lab' } });
    // A CA-issued certificate identifies the client by its domain.
    const caIssued = { fingerprint256: 'AA:BB', subjectCN: 'pharmacy.clinic.example', authorized: true };
    expect(await auth().authenticate({ peer: caIssued })).toMatchObject({ outcome: 'authenticated', client: { clientID: 'pharmacy' } });
    const stranger = { fingerprint256: parseCertificate(strangerCert.cert)?.certFingerprint ?? '', subjectCN: 'stranger.example', authorized: false };
    expect(await auth().authenticate({ peer: stranger })).toMatchObject({ outcome: 'refused', method: 'mutual-tls' });
    const wrongCn = { ...registered, subjectCN: 'someone-else.example' };
    expect(await auth().authenticate({ peer: wrongCn })).toMatchObject({ outcome: 'refused', reason: 'the certificate CN does not equal the client domain' });
    // A client registered by SHA-1 fingerprint is found by the certificate's SHA-1, and only by it.
    const radiology = new X509Certificate(radiologyCert.cert);
    const bySha1 = { fingerprint256: radiology.fingerprint256, fingerprint: radiology.fingerprint, subjectCN: 'radiology.clinic.example', authorized: false };
    expect(await auth().authenticate({ peer: bySha1 })).toMatchObject({ outcome: 'authenticated', method: 'mutual-tls', client: { clientID: 'radiology' } });
    const otherSha1 = { ...bySha1, fingerprint: new X509Certificate(strangerCert.cert).fingerprint };
    expect(await auth().authenticate({ peer: otherSha1 })).toMatchObject({ outcome: 'refused', method: 'mutual-tls' });
    // With mutual TLS off, a certificate is ignored and the header decides.
    expect(await auth({ ...allOn, enableMutualTLSAuthentication: false }).authenticate({ peer: registered })).toEqual({ outcome: 'anonymous' });
  });
});
