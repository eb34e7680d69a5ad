/** Request and response schemas of the keystore routes (`/keystore/*`) and `POST /certificates`, in OpenHIM's names. */
import { Type } from 'typebox';
import type { Static } from 'typebox';

/** A PEM text: a certificate (or a chain) or a key; 1 MB is far more than any chain. */
const Pem = Type.String({ minLength: 1, maxLength: 1_000_000 });
const Passphrase = Type.String({ maxLength: 1000, description: "the key's passphrase; '' for none" });

export const CertUploadBody = Type.Object({ cert: Pem, passphrase: Type.Optional(Passphrase) }, { additionalProperties: false });
export type CertUploadBody = Static<typeof CertUploadBody>;
export const KeyUploadBody = Type.Object({ key: Pem, passphrase: Type.Optional(Passphrase) }, { additionalProperties: false });
export type KeyUploadBody = Static<typeof KeyUploadBody>;
export const PassphraseBody = Type.Object({ passphrase: Passphrase }, { additionalProperties: false });
export const CaUploadBody = Type.Object({ cert: Pem }, { additionalProperties: false });

export const CaParams = Type.Object({ certId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

const Text = Type.String({ maxLength: 200 });
export const GenerateCertificateBody = Type.Object(
  {
    type: Type.Enum(['server', 'client'], { description: "'server' or 'client'" }),
    commonName: Type.String({ minLength: 1, maxLength: 64, description: 'the host name of a server, the name of a client' }),
    country: Type.Optional(Type.String({ pattern: '^([A-Za-z]{2})?$', description: 'two letters, such as NZ' })),
    state: Type.Optional(Text),
    locality: Type.Optional(Text),
    organization: Type.Optional(Text),
    organizationUnit: Type.Optional(Text),
    emailAddress: Type.Optional(Type.Union([Type.Literal(''), Type.String({ format: 'email', maxLength: 254 })])),
    days: Type.Integer({ minimum: 1, maximum: 3650, description: 'days the certificate is valid' }),
    applyToServer: Type.Optional(Type.Boolean({ description: 'server only: serve it as Junction\'s certificate at once (its key is then kept, sealed)' })),
    clientID: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'client only: the client that authenticates with it' })),
  },
  { additionalProperties: false },
);
export type GenerateCertificateBody = Static<typeof GenerateCertificateBody>;

const CertificateInfoProperties = {
  country: Type.String(),
  state: Type.String(),
  locality: Type.String(),
  organization: Type.String(),
  organizationUnit: Type.String(),
  commonName: Type.String(),
  emailAddress: Type.String(),
  validity: Type.Object({ start: Type.String(), end: Type.String() }),
  data: Type.String(),
  fingerprint: Type.String(),
  fingerprint256: Type.String(),
  issuer: Type.String(),
  serialNumber: Type.String(),
  subjectAltNames: Type.Array(Type.String()),
};
export const CertificateInfoSchema = Type.Object(CertificateInfoProperties);
export const ServerCertificateSchema = Type.Object({
  ...CertificateInfoProperties,
  watchFSForCert: Type.Boolean(),
  source: Type.Enum(['configured', 'generated', 'uploaded']),
  pending: Type.Boolean(),
});
export const TrustedCaSchema = Type.Object({ ...CertificateInfoProperties, _id: Type.String(), source: Type.Enum(['uploaded', 'configured']) });
export const UploadAnswerSchema = Type.Object({ applied: Type.Boolean(), warning: Type.Optional(Type.String()) });
export const ValiditySchema = Type.Object({ valid: Type.Boolean(), pending: Type.Boolean(), reason: Type.Optional(Type.String()) });
export const CaUploadAnswerSchema = Type.Object({
  added: Type.Array(TrustedCaSchema),
  skipped: Type.Array(Type.Object({ fingerprint256: Type.String(), commonName: Type.String() })),
});
export const GeneratedCertificateSchema = Type.Object({
  certificate: Type.String(),
  key: Type.String(),
  info: CertificateInfoSchema,
  clientID: Type.Optional(Type.String()),
  applied: Type.Optional(Type.Boolean()),
});
