/** The keystore's wire shapes: certificate info in OpenHIM's fields plus Junction's, and the upload answers. */

/** One certificate as the keystore routes describe it (OpenHIM's fields first). */
export interface CertificateInfo {
  country: string;
  state: string;
  locality: string;
  organization: string;
  organizationUnit: string;
  commonName: string;
  emailAddress: string;
  validity: { start: string; end: string };
  /** The certificate PEM. */
  data: string;
  /** SHA-1, upper-case hexadecimal with colons, as OpenHIM shows it. */
  fingerprint: string;
  fingerprint256: string;
  issuer: string;
  serialNumber: string;
  subjectAltNames: string[];
}

/** A trusted CA in the list; `source` says whether the API may remove it (`configured` ones come from tls.trustedCAFiles). */
export interface TrustedCaInfo extends CertificateInfo {
  _id: string;
  source: 'uploaded' | 'configured';
}

/** `GET /keystore/cert`: the certificate being served. */
export interface ServerCertificateInfo extends CertificateInfo {
  /** True when the certificate comes from tls.certFile (OpenHIM's name): uploads are then refused. */
  watchFSForCert: boolean;
  source: 'configured' | 'generated' | 'uploaded';
  /** Whether an uploaded half (certificate, key or passphrase) waits for the rest of its pair. */
  pending: boolean;
}

/** The answer to an upload of a certificate, key or passphrase. */
export interface KeystoreUploadAnswer {
  /** True when the upload completed a matching pair, which is now served everywhere. */
  applied: boolean;
  /** Why nothing changed yet, when applied is false. */
  warning?: string;
}

/** `GET /keystore/validity`: does the pair that would be served (staged halves over active ones) match. */
export interface KeystoreValidity {
  valid: boolean;
  pending: boolean;
  reason?: string;
}

/** `POST /keystore/ca/cert`: which certificates of the chain were added and which were already trusted. */
export interface CaUploadAnswer {
  added: TrustedCaInfo[];
  skipped: { fingerprint256: string; commonName: string }[];
}

/** `POST /certificates`: the generated certificate and, once only, its key. */
export interface GeneratedCertificate {
  certificate: string;
  key: string;
  info: CertificateInfo;
  /** Set when the certificate was attached to a client (`clientID`). */
  clientID?: string;
  /** Set when the certificate became the server certificate (`applyToServer`). */
  applied?: boolean;
}

/** What `POST /certificates` takes: OpenHIM's fields, plus where the result goes. */
export interface CertificateGenerateInput {
  type: 'server' | 'client';
  commonName: string;
  country?: string;
  state?: string;
  locality?: string;
  organization?: string;
  organizationUnit?: string;
  emailAddress?: string;
  days: number;
  /** A server certificate: serve it at once (its key kept, sealed) rather than only return it. */
  applyToServer?: boolean;
  /** A client certificate: attach it to this client and trust it. */
  clientID?: string;
}
