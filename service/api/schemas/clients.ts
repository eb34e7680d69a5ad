/** Request and response schemas of the clients routes. */
import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';
import { Email, OrNull } from './common.js';

export const ClientID = Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'letters, digits, . _ -' });
/** Role names follow the user-group rule, so one name can be typed the same way everywhere. */
export const RoleName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9 _.@-]{0,63}$', description: 'letters, digits, space, _ . @ -' });
const Roles = Type.Array(RoleName, { maxItems: 50, uniqueItems: true });
const Text = Type.String({ minLength: 1, maxLength: 200 });
const LongText = Type.String({ maxLength: 2000 });
const Domain = Type.String({ minLength: 1, maxLength: 253 });
const Password = Type.String({ minLength: 8, maxLength: 1024 });
// scrypt is what answers show for Junction's own hashes: accepted back (and ignored) so a fetched client can be saved.
const PasswordAlgorithm = Type.Enum(['sha512', 'sha256', 'scrypt']);
const PasswordHash = Type.String({ pattern: '^[0-9a-fA-F]+$', maxLength: 128, description: 'hex digest of password + salt' });
const PasswordSalt = Type.String({ minLength: 1, maxLength: 256 });
const Certificate = Type.String({ minLength: 1, maxLength: 65536, description: 'PEM X.509 certificate' });
const CustomToken = Type.String({ minLength: 16, maxLength: 1024 });
const CertFingerprint = Type.String({
  pattern: '^(?:[0-9A-Fa-f]{2}(?::?[0-9A-Fa-f]{2}){19}|[0-9A-Fa-f]{2}(?::?[0-9A-Fa-f]{2}){31})$',
  description: 'SHA-1 or SHA-256 fingerprint: hex pairs, with or without colons',
});

/** OpenHIM's console sends unused fields as null and cleared text fields as ''. */
const Blank = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Literal(''), Type.Null()]));
const nullable = <T extends TSchema>(schema: T) => Type.Optional(OrNull(schema));

const descriptive = {
  organization: Blank(Text),
  location: Blank(Text),
  softwareName: Blank(Text),
  description: Blank(LongText),
  contactPerson: Blank(Text),
  contactPersonEmail: Blank(Email),
};

/** What an answer carries and a caller may send back as it came: accepted, checked for type, and ignored. */
const readOnly = {
  _id: Type.Optional(Type.String({ maxLength: 100 })),
  __v: Type.Optional(Type.Integer({ minimum: 0 })),
  hasPassword: Type.Optional(Type.Boolean()),
  customTokenSet: Type.Optional(Type.Boolean()),
  certificateSubjectCN: Type.Optional(Type.String({ maxLength: 1000 })),
  createdAt: Type.Optional(Type.String({ maxLength: 100 })),
  updatedAt: Type.Optional(Type.String({ maxLength: 100 })),
};

const fields = {
  clientID: ClientID,
  name: Text,
  clientDomain: Blank(Domain),
  roles: Type.Optional(Roles),
  ...descriptive,
  password: Blank(Password),
  // null removes an imported hash, as in OpenHIM.
  passwordAlgorithm: nullable(PasswordAlgorithm),
  passwordHash: nullable(PasswordHash),
  passwordSalt: nullable(PasswordSalt),
  certificate: Blank(Certificate),
  certFingerprint: Blank(CertFingerprint),
  customTokenID: Blank(CustomToken),
  ...readOnly,
};

export const ClientCreateBody = Type.Object(fields, { additionalProperties: false });
export type ClientCreateBody = Static<typeof ClientCreateBody>;

export const ClientUpdateBody = Type.Object(
  { ...fields, clientID: Type.Optional(ClientID), name: Type.Optional(Text) },
  // An empty body changes nothing and is answered 200, as by OpenHIM (whose tests send {} to see the 403 first).
  { additionalProperties: false },
);
export type ClientUpdateBody = Static<typeof ClientUpdateBody>;

const Id = Type.String({ minLength: 1, maxLength: 100 });
export const ClientParams = Type.Object({ clientId: Id }, { additionalProperties: false });
/** `?byNamedClientID=true` looks the client up by its clientID instead of its _id (OpenHIM). */
export const ClientLookupQuery = Type.Object({ byNamedClientID: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
/** `GET /clients/:clientId/clientName`: the name alone, which any signed-in user may read (OpenHIM). */
export const ClientNameSchema = Type.Object({ name: Type.String() });
export const ClientDomainParams = Type.Object({ clientDomain: Domain }, { additionalProperties: false });

/** The public client view; the response serializer drops anything not listed, a second guard against leaking secrets. */
export const PublicClientSchema = Type.Object({
  _id: Type.String(),
  clientID: Type.String(),
  name: Type.String(),
  clientDomain: Type.Optional(Type.String()),
  roles: Type.Array(Type.String()),
  organization: Type.Optional(Type.String()),
  location: Type.Optional(Type.String()),
  softwareName: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  contactPerson: Type.Optional(Type.String()),
  contactPersonEmail: Type.Optional(Type.String()),
  passwordAlgorithm: Type.Optional(Type.String()),
  hasPassword: Type.Boolean(),
  customTokenSet: Type.Boolean(),
  certFingerprint: Type.Optional(Type.String()),
  certificateSubjectCN: Type.Optional(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type PublicClient = Static<typeof PublicClientSchema>;
