/** Generation of a self-signed server certificate for the management API and the HTTPS transaction port. */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import forge from 'node-forge';

export interface GeneratedPair {
  cert: string;
  key: string;
}

const VALIDITY_DAYS = 825;

/** Names and addresses a LAN client may use to reach this machine; all go into subjectAltName. */
export function localNames(): { dns: string[]; ips: string[] } {
  const dns = [...new Set(['localhost', hostname()].filter((n) => n.length > 0))];
  const ips = new Set(['127.0.0.1', '::1']);
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) if (!info.internal) ips.add(info.address.split('%')[0] ?? info.address);
  }
  return { dns, ips: [...ips] };
}

/** Creates an RSA 2048 key (node:crypto) and a self-signed certificate for it (node-forge). */
export function generateSelfSigned(commonName = hostname() || 'localhost'): GeneratedPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicPem);
  // A positive random serial: the high bit cleared so it is not read as negative.
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  cert.serialNumber = serial.toString('hex');
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  cert.validity.notAfter = new Date(now.getTime() + VALIDITY_DAYS * 24 * 60 * 60 * 1000);
  const subject = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Junction (self-signed)' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  const names = localNames();
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    // clientAuth too: Junction presents this certificate as its client certificate when it sends audit events over TLS.
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    {
      name: 'subjectAltName',
      altNames: [...names.dns.map((value) => ({ type: 2, value })), ...names.ips.map((ip) => ({ type: 7, ip }))],
    },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keyPem };
}
