/** Certificate PEMs read into the keystore's info shape, and chains split into their certificates. */
import { X509Certificate } from 'node:crypto';
import type { CertificateInfo } from '../contracts/keystore.js';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The PEM blocks of a text (a single certificate or a chain), in order. */
export function pemBlocks(text: string): string[] {
  return text.match(PEM_BLOCK) ?? [];
}

/** Parses one PEM certificate; throws an Error whose message says why it does not parse. */
export function parseCertificate(pem: string): X509Certificate {
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) throw new Error('no "-----BEGIN CERTIFICATE-----" PEM block found');
  try {
    return new X509Certificate(blocks[0] ?? '');
  } catch (err) {
    throw new Error(`the certificate does not parse (${(err as Error).message})`, { cause: err });
  }
}

/** The value of one attribute of a distinguished name as node prints it ("C=NZ\nCN=..." lines). */
function field(dn: string, name: string): string {
  for (const line of dn.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && line.slice(0, at) === name) return line.slice(at + 1);
  }
  return '';
}

/** The info of a parsed certificate, in OpenHIM's fields plus issuer, serial number, SANs and SHA-256 fingerprint. */
export function certificateInfo(x509: X509Certificate): CertificateInfo {
  const dn = x509.subject;
  return {
    country: field(dn, 'C'),
    state: field(dn, 'ST'),
    locality: field(dn, 'L'),
    organization: field(dn, 'O'),
    organizationUnit: field(dn, 'OU'),
    commonName: field(dn, 'CN'),
    emailAddress: field(dn, 'emailAddress'),
    validity: { start: new Date(x509.validFrom).toISOString(), end: new Date(x509.validTo).toISOString() },
    data: x509.toString(),
    fingerprint: x509.fingerprint,
    fingerprint256: x509.fingerprint256,
    issuer: x509.issuer.split('\n').join(', '),
    serialNumber: x509.serialNumber,
    subjectAltNames: x509.subjectAltName === undefined ? [] : x509.subjectAltName.split(', ').filter((n) => n.length > 0),
  };
}
