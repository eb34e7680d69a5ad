/** Request and response schemas of the users routes. */
import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';
import { PASSWORD_MAX_LENGTH } from '../../domain/access/password-policy.js';
import { Email, FreeFormObject, OrNull } from './common.js';

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Group = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9 _.@-]{0,63}$', description: 'letters, digits, space, _ . @ -' });
const Groups = Type.Array(Group, { maxItems: 50, uniqueItems: true });
const Msisdn = Type.String({ pattern: '^\\+?[0-9]{6,15}$', description: 'international phone number, digits only' });
// The console's own preferences: any shape, within the free-form rules (depth, size, storable keys, finite numbers).
const Settings = FreeFormObject({ maxProperties: 100 });
// Length rules beyond "a string" are checked by the password policy, so the message can say what to change.
const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH * 4 });

/** OpenHIM's console sends unused fields as null; '' for a number or password is an empty form field. */
const Nullable = <T extends TSchema>(schema: T) => Type.Optional(OrNull(schema));
const Blank = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Literal(''), Type.Null()]));
const TokenType = Type.Enum(['newUser', 'existingUser']);

/** What an answer (Junction's or OpenHIM's) carries and a caller may send back as it came: type-checked, then ignored. */
const readOnly = {
  _id: Type.Optional(Type.String({ maxLength: 100 })),
  __v: Type.Optional(Type.Integer({ minimum: 0 })),
  builtin: Type.Optional(Type.Boolean()),
  locked: Nullable(Type.Boolean()),
  tokenType: Nullable(TokenType),
  expiry: Nullable(Type.String({ maxLength: 100 })),
  token: Nullable(Type.String({ maxLength: 200 })),
  provider: Nullable(Type.Enum(['local', 'openid', 'token'])),
  createdAt: Type.Optional(Type.String({ maxLength: 100 })),
  updatedAt: Type.Optional(Type.String({ maxLength: 100 })),
};

const fields = {
  email: Email,
  firstname: Name,
  surname: Name,
  groups: Groups,
  // Without one, the user is invited to set it.
  password: Blank(Password),
  // null or '' removes the number.
  msisdn: Blank(Msisdn),
  dailyReport: Nullable(Type.Boolean()),
  weeklyReport: Nullable(Type.Boolean()),
  settings: Nullable(Settings),
  passwordChangeRequired: Nullable(Type.Boolean()),
  ...readOnly,
};

export const UserCreateBody = Type.Object(fields, { additionalProperties: false });
export type UserCreateBody = Static<typeof UserCreateBody>;

export const UserUpdateBody = Type.Object(
  { ...fields, email: Type.Optional(Email), firstname: Type.Optional(Name), surname: Type.Optional(Name), groups: Type.Optional(Groups) },
  // An empty body changes nothing and is answered 200, as by OpenHIM.
  { additionalProperties: false },
);
export type UserUpdateBody = Static<typeof UserUpdateBody>;

export const UserParams = Type.Object({ email: Email }, { additionalProperties: false });

/** The public user view; the response serializer drops anything not listed, a second guard against leaking hashes. */
export const PublicUserSchema = Type.Object({
  _id: Type.String(),
  email: Type.String(),
  firstname: Type.String(),
  surname: Type.String(),
  groups: Type.Array(Type.String()),
  msisdn: Type.Optional(Type.String()),
  dailyReport: Type.Boolean(),
  weeklyReport: Type.Boolean(),
  settings: Type.Record(Type.String(), Type.Unknown()),
  passwordChangeRequired: Type.Boolean(),
  builtin: Type.Boolean(),
  locked: Type.Boolean(),
  provider: Type.Optional(Type.Literal('openid')),
  tokenType: Type.Optional(TokenType),
  expiry: Type.Optional(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** `GET /me` (OpenHIM's shape: the user under `user`). */
export const SessionAnswerSchema = Type.Object({ user: PublicUserSchema });

/** `POST /authenticate/local` (OpenHIM's shape: a confirmation under `result`, the user under `user`). */
export const LoginAnswerSchema = Type.Object({ result: Type.String(), user: PublicUserSchema });

/** `POST /users/:email/password-token` (admins): the new token, shown this once. */
export const PasswordTokenAnswerSchema = Type.Object({ token: Type.String(), tokenType: TokenType, expiry: Type.String() });

/** A set-password token as it comes in the path: what `newPasswordToken` makes (64 hex digits), or OpenHIM's 32. */
export const TokenParams = Type.Object({ token: Type.String({ pattern: '^[0-9A-Za-z_-]{16,128}$' }) }, { additionalProperties: false });

/** `GET /token/:token`: OpenHIM's projection of the user the link belongs to. */
export const TokenUserAnswerSchema = Type.Object({
  email: Type.String(),
  firstname: Type.String(),
  surname: Type.String(),
  msisdn: Type.Optional(Type.String()),
  token: Type.String(),
  tokenType: TokenType,
  locked: Type.Boolean(),
  expiry: Type.String(),
});

/** `PUT /token/:token`: the password, and for an invited user their names and number; the GET answer's fields may come back. */
export const TokenPasswordBody = Type.Object(
  {
    password: Password,
    firstname: Type.Optional(Name),
    surname: Type.Optional(Name),
    msisdn: Blank(Msisdn),
    email: Type.Optional(Email),
    token: Type.Optional(Type.String({ maxLength: 200 })),
    tokenType: Nullable(TokenType),
    locked: Nullable(Type.Boolean()),
    expiry: Nullable(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

/** `GET /password-reset-request/:email`: the address as typed (any text, so a malformed one gets the same answer). */
export const ResetRequestParams = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }, { additionalProperties: false });
