/**
 * User payloads of the management API (`/users`, and OpenHIM's set-password flow `/password-reset-request/:email`,
 * `/token/:token`). The user view itself is `PublicUser` in api.ts.
 */
import type { PasswordTokenType, PublicUser } from './api.js';

export type { PasswordTokenType, PublicUser };

/** `GET /me`: the signed-in user, wrapped as OpenHIM's console reads it. */
export interface SessionAnswer {
  user: PublicUser;
}

/** `POST /authenticate/local`: OpenHIM's confirmation text and the signed-in user. */
export interface LoginAnswer {
  result: string;
  user: PublicUser;
}

/**
 * Fields of an answer that a caller may send back unchanged (OpenHIM's console saves the object it fetched): accepted
 * and ignored. `__v` is Mongo's version key and `provider`, `token` are OpenHIM's, found in documents fetched from it.
 */
export interface UserReadOnlyFields {
  _id?: string;
  __v?: number;
  builtin?: boolean;
  locked?: boolean | null;
  tokenType?: PasswordTokenType | null;
  expiry?: string | null;
  token?: string | null;
  provider?: 'local' | 'openid' | 'token' | null;
  createdAt?: string;
  updatedAt?: string;
}

/**
 * `POST /users`. Without a password the user is invited: they cannot sign in until they set one through a
 * set-password link (`POST /users/:email/password-token`). null means "not set", as OpenHIM's console sends it.
 */
export interface UserCreateInput extends UserReadOnlyFields {
  email: string;
  firstname: string;
  surname: string;
  groups: string[];
  password?: string | null;
  /** International phone number for SMS alerts, digits with an optional leading +; '' or null = none. */
  msisdn?: string | null;
  dailyReport?: boolean | null;
  weeklyReport?: boolean | null;
  settings?: Record<string, unknown> | null;
  /** Makes the user choose a new password at the next sign-in. */
  passwordChangeRequired?: boolean | null;
}

/** `PUT /users/:email`: omitted or null fields stay, except a null or '' MSISDN, which removes the number. */
export type UserUpdateInput = Partial<UserCreateInput>;

/** `POST /users/:email/password-token` (admins): a new set-password token, shown this once; the link is the console's `#/set-password/<token>`. */
export interface PasswordTokenAnswer {
  token: string;
  tokenType: PasswordTokenType;
  expiry: string;
}

/** `GET /token/:token`: whose link this is, in OpenHIM's shape (the token is echoed, as OpenHIM's console saves by it). */
export interface TokenUserAnswer {
  email: string;
  firstname: string;
  surname: string;
  msisdn?: string;
  token: string;
  tokenType: PasswordTokenType;
  locked: boolean;
  expiry: string;
}

/**
 * `PUT /token/:token`: the new password; an invited user may also give their names and number. The fields of the
 * `GET /token/:token` answer may come back with it and are ignored.
 */
export interface TokenPasswordInput {
  password: string;
  firstname?: string;
  surname?: string;
  msisdn?: string | null;
  email?: string;
  token?: string;
  tokenType?: PasswordTokenType | null;
  locked?: boolean | null;
  expiry?: string | null;
}
