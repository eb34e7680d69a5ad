/** The client certificate a TLS peer presented, in the shape client authentication reads (pipeline/authenticate.ts). */
import type { TLSSocket } from 'node:tls';

export interface PeerCertificate {
  fingerprint256: string;
  /** SHA-1, for a client registered by the fingerprint OpenHIM's console sends. */
  fingerprint?: string;
  subjectCN?: string;
  /** Chains to a trusted CA. */
  authorized: boolean;
}

/** The certificate the peer of a TLS socket presented, or undefined when it presented none. */
export function peerCertificateOf(socket: TLSSocket): PeerCertificate | undefined {
  const cert = socket.getPeerCertificate();
  if (cert.fingerprint256 === undefined || cert.fingerprint256 === '') return undefined;
  const cn = cert.subject.CN;
  return { fingerprint256: cert.fingerprint256, fingerprint: cert.fingerprint, subjectCN: Array.isArray(cn) ? cn[0] : cn, authorized: socket.authorized };
}
