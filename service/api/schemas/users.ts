/** Request and response schemas of the users routes. */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { PASSWORD_MAX_LENGTH } from '../../domain/password-policy.js';
import { Email, FreeFormObject, OrNull } from './common.js';

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Group = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9 _.@-]{0,63}$', description: 'letters, digits, space, _ . @ -' });
const Groups = Type.Array(Group, { maxItems: 50, uniqueItems: true });
const Msisdn = Type.String({ pattern: '^\\+?[0-9]{6,15}$', description: 'international phone number, digits only' });
// The console's own preferences: any shape, within the free-form rules (depth, size, storable keys, finite numbers).
const Settings = FreeFormObject({ maxProperties: 100 });
// Length rules beyond "a string" are checked by the password policy, so the message can say what to change.
const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH * 4 });

export const UserCreateBody = Type.Object(
  {
    email: Email,
    firstname: Name,
    surname: Name,
    groups: Groups,
    password: Password,
    msisdn: Type.Optional(Msisdn),
    dailyReport: Type.Optional(Type.Boolean()),
    weeklyReport: Type.Optional(Type.Boolean()),
    settings: Type.Optional(Settings),
    passwordChangeRequired: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type UserCreateBody = Static<typeof UserCreateBody>;

export const UserUpdateBody = Type.Object(
  {
    email: Type.Optional(Email),
    firstname: Type.Optional(Name),
    surname: Type.Optional(Name),
    groups: Type.Optional(Groups),
    password: Type.Optional(Password),
    // null removes the number.
    msisdn: Type.Optional(OrNull(Msisdn)),
    dailyReport: Type.Optional(Type.Boolean()),
    weeklyReport: Type.Optional(Type.Boolean()),
    settings: Type.Optional(Settings),
    passwordChangeRequired: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
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
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** `GET /me` (OpenHIM's shape: the user under `user`). */
export const SessionAnswerSchema = Type.Object({ user: PublicUserSchema });

/** `POST /authenticate/local` (OpenHIM's shape: a confirmation under `result`, the user under `user`). */
export const LoginAnswerSchema = Type.Object({ result: Type.String(), user: PublicUserSchema });
