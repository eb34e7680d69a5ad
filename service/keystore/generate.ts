/** Certificates made on request (`POST /certificates`): self-signed, for a server or a client, with node-forge. */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import type { CertificateGenerateInput } from '../contracts/keystore.js';

/** The subject and lifetime of a certificate to make; where it goes is the route's business. */
export type CertificateRequest = Omit<CertificateGenerateInput, 'applyToServer' | 'clientID'>;

/** Subject attributes in OpenHIM's request names, to forge's names; empty ones are left out. */
const SUBJECT_FIELDS: [keyof CertificateRequest, string][] = [
  ['commonName', 'commonName'],
  ['country', 'countryName'],
  ['state', 'stateOrProvinceName'],
  ['locality', 'localityName'],
  ['organization', 'organizationName'],
  ['organizationUnit', 'organizationalUnitName'],
  ['emailAddress', 'emailAddress'],
];

/** An IPv4 or IPv6 literal, which goes into the SAN as an address rather than a name. */
function isIpLiteral(name: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':');
}

/** Creates an RSA 2048 key and a self-signed certificate for it; `now` fixes the start of validity. */
export function generateCertificate(request: CertificateRequest, now: Date = new Date()): { certificate: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  cert.serialNumber = serial.toString('hex');
  // A little before now, so a peer whose clock is slightly behind still accepts it.
  cert.validity.notBefore = new Date(now.getTime() - 5 * 60 * 1000);
  cert.validity.notAfter = new Date(now.getTime() + request.days * 24 * 60 * 60 * 1000);
  const subject = SUBJECT_FIELDS.flatMap(([field, name]) => {
    const value = request[field];
    if (typeof value !== 'string' || value.trim() === '') return [];
    if (field === 'country') return [{ name, value: value.toUpperCase() }];
    if (field === 'emailAddress') return [{ name, value: value.trim() }];
    // Names are written as UTF8String (forge encodes them), so a clinic's name with accents reads back as typed.
    return [{ name, value: value.trim(), valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class }];
  });
  cert.setSubject(subject);
  cert.setIssuer(subject);
  const server = request.type === 'server';
  const cn = request.commonName.trim();
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    // A server certificate generated for Junction is also its client certificate (audit forwarding over TLS).
    { name: 'extKeyUsage', serverAuth: server, clientAuth: true },
    ...(server ? [{ name: 'subjectAltName', altNames: [isIpLiteral(cn) ? { type: 7, ip: cn } : { type: 2, value: cn }] }] : []),
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(key), forge.md.sha256.create());
  return { certificate: forge.pki.certificateToPem(cert), key };
}
