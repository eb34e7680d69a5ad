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
const PasswordAlgorithm = Type.Enum(['sha512', 'sha256']);
const PasswordHash = Type.String({ pattern: '^[0-9a-fA-F]+$', maxLength: 128, description: 'hex digest of password + salt' });
const PasswordSalt = Type.String({ minLength: 1, maxLength: 256 });
const Certificate = Type.String({ minLength: 1, maxLength: 65536, description: 'PEM X.509 certificate' });
const CustomToken = Type.String({ minLength: 16, maxLength: 1024 });

const descriptive = {
  organization: Type.Optional(Text),
  location: Type.Optional(Text),
  softwareName: Type.Optional(Text),
  description: Type.Optional(LongText),
  contactPerson: Type.Optional(Text),
  contactPersonEmail: Type.Optional(Email),
};

const prehashed = {
  passwordAlgorithm: Type.Optional(PasswordAlgorithm),
  passwordHash: Type.Optional(PasswordHash),
  passwordSalt: Type.Optional(PasswordSalt),
};

export const ClientCreateBody = Type.Object(
  {
    clientID: ClientID,
    name: Text,
    clientDomain: Type.Optional(Domain),
    roles: Type.Optional(Roles),
    ...descriptive,
    password: Type.Optional(Password),
    ...prehashed,
    certificate: Type.Optional(Certificate),
    customToken: Type.Optional(CustomToken),
  },
  { additionalProperties: false },
);
export type ClientCreateBody = Static<typeof ClientCreateBody>;

const nullable = <T extends TSchema>(schema: T) => Type.Optional(OrNull(schema));

export const ClientUpdateBody = Type.Object(
  {
    clientID: Type.Optional(ClientID),
    name: Type.Optional(Text),
    // null removes the domain or a descriptive field.
    clientDomain: nullable(Domain),
    roles: Type.Optional(Roles),
    organization: nullable(Text),
    location: nullable(Text),
    softwareName: nullable(Text),
    description: nullable(LongText),
    contactPerson: nullable(Text),
    contactPersonEmail: nullable(Email),
    // null removes that credential.
    password: nullable(Password),
    ...prehashed,
    certificate: nullable(Certificate),
    customToken: nullable(CustomToken),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ClientUpdateBody = Static<typeof ClientUpdateBody>;

const Id = Type.String({ minLength: 1, maxLength: 100 });
export const ClientParams = Type.Object({ clientId: Id }, { additionalProperties: false });
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
  hasCustomToken: Type.Boolean(),
  certFingerprint: Type.Optional(Type.String()),
  certificateSubjectCN: Type.Optional(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type PublicClient = Static<typeof PublicClientSchema>;
