/** The keystore module on its own: staging and passphrases, the configured-file source, the old tls/ pair, the secret file, and expiry warnings. */
import { X509Certificate, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Keystore } from '../../service/keystore/keystore.js';
import type { KeystoreOptions } from '../../service/keystore/keystore.js';
import { runExpiryCheck } from '../../service/keystore/expiry-job.js';
import { generateCertificate } from '../../service/keystore/generate.js';
import { Outbox } from '../../service/notify/outbox.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { tempDir } from '../helpers/junction.js';

const silent = pino({ level: 'silent' });
const dirs: string[] = [];
const opened: Keystore[] = [];

async function open(overrides: Partial<KeystoreOptions> = {}, dataDir?: string): Promise<{ keystore: Keystore; dataDir: string }> {
  const dir = dataDir ?? (await tempDir('junction-keystore-'));
  if (dataDir === undefined) dirs.push(dir);
  const keystore = await Keystore.open({ dataDir: dir, secretFile: '', tls: { certFile: '', keyFile: '', trustedCAFiles: [] }, logger: silent, watchIntervalMs: 0, ...overrides });
  opened.push(keystore);
  return { keystore, dataDir: dir };
}

/** A pair whose key is encrypted with a passphrase. */
function encryptedPair(passphrase: string): { cert: string; key: string } {
  const plain = generateSelfSigned('localhost');
  const key = createPrivateKey(plain.key).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString();
  return { cert: plain.cert, key };
}

/** A self-signed localhost certificate whose extended key usage is serverAuth alone. */
function serverAuthOnly(): { cert: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 100 * 24 * 60 * 60 * 1000);
  cert.setSubject([{ name: 'commonName', value: 'localhost' }]);
  cert.setIssuer([{ name: 'commonName', value: 'localhost' }]);
  cert.setExtensions([{ name: 'extKeyUsage', serverAuth: true }]);
  cert.sign(forge.pki.privateKeyFromPem(key), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key };
}

afterEach(async () => {
  for (const k of opened.splice(0)) k.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('the keystore', () => {
  it('takes up a change written to its file by another keystore on reload, comparing versions', async () => {
    const { keystore: a, dataDir } = await open();
    const { keystore: b } = await open({}, dataDir);
    const changed: boolean[] = [];
    b.onChange((change) => changed.push(change.certificateChanged));
    expect(await b.reload()).toBe(false);
    await a.addCAs(generateCertificate({ type: 'client', commonName: 'Reloaded CA', days: 30 }).certificate);
    expect(b.listCAs()).toEqual([]);
    expect(await b.reload()).toBe(true);
    expect(b.listCAs().map((c) => c.commonName)).toEqual(['Reloaded CA']);
    expect(changed).toEqual([false]);
    expect(await b.reload()).toBe(false);
  });

  it('applies an encrypted key once its passphrase arrives, and a later certificate upload keeps that passphrase', async () => {
    const { keystore, dataDir } = await open();
    const pair = encryptedPair('clinic passphrase 7');
    expect(await keystore.uploadCert(pair.cert)).toMatchObject({ applied: false });
    const keyOnly = await keystore.uploadKey(pair.key);
    expect(keyOnly.applied).toBe(false);
    expect(keyOnly.warning).toContain('upload its passphrase');
    expect(await keystore.uploadPassphrase('clinic passphrase 7')).toEqual({ applied: true });
    expect(keystore.certificate()).toMatchObject({ passphrase: 'clinic passphrase 7', source: 'uploaded' });
    // OpenHIM wiped the passphrase on a certificate upload; here the same certificate again applies with it.
    expect(await keystore.uploadCert(pair.cert)).toEqual({ applied: true });
    expect(keystore.certificate().passphrase).toBe('clinic passphrase 7');
    const file = await readFile(join(dataDir, 'keystore', 'keystore.json'), 'utf8');
    expect(file).not.toContain('clinic passphrase 7');
    expect(file).not.toContain('ENCRYPTED PRIVATE KEY');
  });

  it('refuses to open without the secret that sealed it, naming the file', async () => {
    const { dataDir } = await open();
    opened.pop()?.close();
    await rm(join(dataDir, 'keystore.secret'));
    await expect(open({}, dataDir)).rejects.toThrow(/keystore secret file .*keystore\.secret is missing/);
    await writeFile(join(dataDir, 'keystore.secret'), `${'ab'.repeat(32)}\n`);
    await expect(open({}, dataDir)).rejects.toThrow(/cannot be read with the secret/);
  });

  it('moves the pair an earlier version generated into tls/ into the keystore, keeping its fingerprint, and regenerates one without clientAuth', async () => {
    const dataDir = await tempDir('junction-keystore-');
    dirs.push(dataDir);
    const old = generateSelfSigned('localhost');
    await mkdir(join(dataDir, 'tls'));
    await writeFile(join(dataDir, 'tls', 'server-cert.pem'), old.cert);
    await writeFile(join(dataDir, 'tls', 'server-key.pem'), old.key);
    const { keystore } = await open({}, dataDir);
    expect(keystore.certificate().cert).toBe(old.cert);
    await expect(readFile(join(dataDir, 'tls', 'server-key.pem'))).rejects.toThrow();

    const other = await tempDir('junction-keystore-');
    dirs.push(other);
    // A certificate for serverAuth only, as versions before the audit forwarder generated.
    const oldStyle = serverAuthOnly();
    await mkdir(join(other, 'tls'));
    await writeFile(join(other, 'tls', 'server-cert.pem'), oldStyle.cert);
    await writeFile(join(other, 'tls', 'server-key.pem'), oldStyle.key);
    const regenerated = (await open({}, other)).keystore.certificate();
    expect(regenerated.source).toBe('generated');
    expect(regenerated.cert).not.toBe(oldStyle.cert);
    expect(new X509Certificate(regenerated.cert).keyUsage).toContain('1.3.6.1.5.5.7.3.2');
  });

  it('takes tls.certFile as the source: uploads answer 400, and a replaced pair is served after a reload', async () => {
    const dir = await tempDir('junction-keystore-');
    dirs.push(dir);
    const first = generateSelfSigned('one.example');
    await writeFile(join(dir, 'cert.pem'), first.cert);
    await writeFile(join(dir, 'key.pem'), first.key);
    const { keystore } = await open({ tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem'), trustedCAFiles: [] } });
    expect(keystore.serverInfo()).toMatchObject({ watchFSForCert: true, source: 'configured', commonName: 'one.example' });
    await expect(keystore.uploadCert(first.cert)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('tls.certFile') as unknown });
    const changes: string[] = [];
    keystore.onChange((c) => changes.push(c.certificate.fingerprint256));
    const second = generateSelfSigned('two.example');
    // Half replaced: not a pair, still the old one served.
    await writeFile(join(dir, 'cert.pem'), second.cert);
    expect(await keystore.reloadConfigured()).toBe(false);
    await writeFile(join(dir, 'key.pem'), second.key);
    expect(await keystore.reloadConfigured()).toBe(true);
    expect(changes).toEqual([keystore.certificate().fingerprint256]);
    expect(keystore.serverInfo().commonName).toBe('two.example');
  });

  it('warns of a certificate near expiry once a day per recipient, to the admins by default', async () => {
    const { keystore, dataDir } = await open();
    const store = createNedbStore({ dataDir, logger: silent });
    await store.open();
    try {
      await store.users.insert({ email: 'admin@clinic.example', firstname: 'A', surname: 'D', groups: ['admin'] } as never);
      await store.users.insert({ email: 'clerk@clinic.example', firstname: 'C', surname: 'L', groups: ['records'] } as never);
      const soon = generateCertificate({ type: 'client', commonName: 'Lab CA', days: 10 });
      await keystore.addCAs(soon.certificate);
      let now = new Date();
      const outbox = new Outbox({ notifications: store.notifications, now: () => now });
      const deps = { keystore, users: store.users, contactGroups: store.contactGroups, outbox, warningDays: 30, groups: [], instance: 'Clinic', logger: silent, now: () => now };
      const first = await runExpiryCheck(deps);
      expect(first.map((m) => [m.to, m.subject])).toEqual([['admin@clinic.example', expect.stringMatching(/^Clinic: trusted CA certificate Lab CA expires in 9 days/) as unknown]]);
      const again = await runExpiryCheck(deps);
      expect(again.map((m) => m._id)).toEqual(first.map((m) => m._id));
      expect(await store.notifications.count({})).toBe(1);
      now = new Date(now.getTime() + 24 * 60 * 60 * 1000);
      await runExpiryCheck(deps);
      expect(await store.notifications.count({})).toBe(2);
      // The generated server certificate (825 days) is not near expiry.
      expect((await runExpiryCheck({ ...deps, warningDays: 30 })).every((m) => m.subject.includes('trusted CA'))).toBe(true);
    } finally {
      await store.close();
    }
  });
});
