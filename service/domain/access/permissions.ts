/**
 * Who may do what: user accounts, channels, mediators and admin-only work. Pure decisions; the API's guards
 * (api/guards.ts) turn a refusal into its error.
 */

export const ADMIN_GROUP = 'admin';

export interface Actor {
  _id: string;
  groups: readonly string[];
}

export interface TargetUser {
  _id: string;
  groups: readonly string[];
  builtin?: boolean;
  email?: string;
  passwordChangeRequired?: boolean;
}

export type Decision = { allowed: true } | { allowed: false; reason: string; code?: 'BUILTIN_USER_PROTECTED' };

const allow: Decision = { allowed: true };
const deny = (reason: string, code?: 'BUILTIN_USER_PROTECTED'): Decision => ({ allowed: false, reason, code });

/** True for members of the admin group: they may do everything. */
export function isAdmin(actor: { groups: readonly string[] }): boolean {
  return actor.groups.includes(ADMIN_GROUP);
}

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  const left = [...new Set(a)].sort();
  const right = [...new Set(b)].sort();
  return left.length === right.length && left.every((g, i) => g === right[i]);
}

/** Admin-only work; `work` completes the refusal "Only admins can …" (for example "delete channels"). */
export function adminOnly(actor: { groups: readonly string[] }, work: string): Decision {
  return isAdmin(actor) ? allow : deny(`Only admins can ${work}`);
}

/** Listing every account is an admin task. */
export function canListUsers(actor: Actor): Decision {
  return adminOnly(actor, 'list users');
}

/** Admins may create accounts; nobody else. */
export function canCreateUser(actor: Actor): Decision {
  return adminOnly(actor, 'create users');
}

/**
 * Admins may address any account by email; others only their own, whether the address exists or not, so the
 * answer does not reveal which accounts exist.
 */
export function canAddressUser(actor: { email: string; groups: readonly string[] }, email: string): Decision {
  return isAdmin(actor) || actor.email === email.toLowerCase() ? allow : deny('You can only view or change your own user account');
}

/** Admins read any account; everyone reads their own. */
export function canReadUser(actor: Actor, target: TargetUser): Decision {
  return isAdmin(actor) || actor._id === target._id ? allow : deny('You can only view your own profile');
}

/** A change as sent; null is OpenHIM's "not set", so it changes nothing. */
export interface UserChangeRequest {
  groups?: readonly string[] | null;
  email?: string | null;
  passwordChangeRequired?: boolean | null;
}

/**
 * Admins change any account (the built-in super user keeps admin); others change only their own profile and password.
 * A non-admin saving their own profile as it was fetched sends their groups, email and flag unchanged: that is no
 * change, so it is allowed (groups in any order).
 */
export function canUpdateUser(actor: Actor, target: TargetUser, change: UserChangeRequest): Decision {
  const groups = change.groups ?? undefined;
  if (target.builtin === true && groups !== undefined && !groups.includes(ADMIN_GROUP)) {
    return deny('The built-in super user must stay in the admin group', 'BUILTIN_USER_PROTECTED');
  }
  if (isAdmin(actor)) return allow;
  if (actor._id !== target._id) return deny('You can only change your own profile');
  if (groups !== undefined && !sameGroups(groups, target.groups)) return deny('You cannot change your own groups');
  const flag = change.passwordChangeRequired ?? undefined;
  if (flag !== undefined && flag !== (target.passwordChangeRequired ?? false)) return deny('Only admins can require a password change');
  const email = change.email ?? undefined;
  if (email !== undefined && email.trim().toLowerCase() !== target.email) return deny('Only admins can change an email address');
  return allow;
}

/** Admins delete accounts, except the built-in super user. */
export function canDeleteUser(actor: Actor, target: TargetUser): Decision {
  if (!isAdmin(actor)) return deny('Only admins can delete users');
  if (target.builtin === true) return deny('The built-in super user cannot be deleted', 'BUILTIN_USER_PROTECTED');
  return allow;
}

export interface ChannelAcls {
  txViewAcl: readonly string[];
  txViewFullAcl: readonly string[];
  txRerunAcl: readonly string[];
}

/** Admins see every channel; other users see channels whose transaction ACLs name one of their groups. */
export function canViewChannel(actor: { groups: readonly string[] }, channel: ChannelAcls): boolean {
  if (isAdmin(actor)) return true;
  return [...channel.txViewAcl, ...channel.txViewFullAcl, ...channel.txRerunAcl].some((g) => actor.groups.includes(g));
}
