/** User payloads of the management API (`/users`). The user view itself is `PublicUser` in api.ts. */
import type { PublicUser } from './api.js';

export type { PublicUser };

/** `GET /me`: the signed-in user, wrapped as OpenHIM's console reads it. */
export interface SessionAnswer {
  user: PublicUser;
}

/** `POST /authenticate/local`: OpenHIM's confirmation text and the signed-in user. */
export interface LoginAnswer {
  result: string;
  user: PublicUser;
}

/** `POST /users`. */
export interface UserCreateInput {
  email: string;
  firstname: string;
  surname: string;
  groups: string[];
  password: string;
  /** International phone number for SMS alerts, digits with an optional leading +. */
  msisdn?: string;
  dailyReport?: boolean;
  weeklyReport?: boolean;
  settings?: Record<string, unknown>;
  /** Makes the user choose a new password at the next sign-in. */
  passwordChangeRequired?: boolean;
}

/** `PUT /users/:email`: omitted fields stay; a null MSISDN removes the number. */
export interface UserUpdateInput {
  email?: string;
  firstname?: string;
  surname?: string;
  groups?: string[];
  password?: string;
  msisdn?: string | null;
  dailyReport?: boolean;
  weeklyReport?: boolean;
  settings?: Record<string, unknown>;
  passwordChangeRequired?: boolean;
}
