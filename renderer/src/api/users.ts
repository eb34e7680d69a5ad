/** The users routes of the management API, and OpenHIM's set-password flow, typed. Users are addressed by email. */
import type { PasswordTokenAnswer, PublicUser, TokenPasswordInput, TokenUserAnswer, UserCreateInput, UserUpdateInput } from '../../../service/contracts/users';
import type { ApiAuthenticationType } from '../../../service/contracts/api';
import { api, seg } from './client';

export function listUsers(signal?: AbortSignal): Promise<PublicUser[]> {
  return api.get<PublicUser[]>('/users', undefined, signal);
}

export function getUser(email: string, signal?: AbortSignal): Promise<PublicUser> {
  return api.get<PublicUser>(`/users/${seg(email)}`, undefined, signal);
}

export function createUser(input: UserCreateInput): Promise<PublicUser> {
  return api.post<PublicUser>('/users', input);
}

export function updateUser(email: string, changes: UserUpdateInput): Promise<PublicUser> {
  return api.put<PublicUser>(`/users/${seg(email)}`, changes);
}

export async function deleteUser(email: string): Promise<void> {
  await api.delete(`/users/${seg(email)}`);
}

/** Admins: a new set-password link for the user (an invitation, or a reset), shown once. */
export function issuePasswordToken(email: string): Promise<PasswordTokenAnswer> {
  return api.post<PasswordTokenAnswer>(`/users/${seg(email)}/password-token`);
}

/** Public: whose set-password link this is (404 unknown or used, 410 expired). */
export function getTokenUser(token: string, signal?: AbortSignal): Promise<TokenUserAnswer> {
  return api.request<TokenUserAnswer>(`/token/${seg(token)}`, { noReauth: true, signal });
}

/** Public: sets the password through the link, which then stops working. */
export async function setPasswordByToken(token: string, input: TokenPasswordInput): Promise<void> {
  await api.request(`/token/${seg(token)}`, { method: 'PUT', body: input, noReauth: true });
}

/** The link a token opens in this console (OpenHIM's console uses the same `#/set-password/<token>` route). */
export function setPasswordLink(token: string): string {
  return `${window.location.origin}${window.location.pathname}#/set-password/${token}`;
}

/** Public: how users may sign in on this server (`api.authenticationTypes`), for the sign-in page. */
export function signInTypes(signal?: AbortSignal): Promise<ApiAuthenticationType[]> {
  return api.request<ApiAuthenticationType[]>('/authentication/api-types', { noReauth: true, signal });
}
