/**
 * OpenID sign-in's pure decisions: reading a claim by a dotted path, and turning a provider's claims into the
 * Junction user they name (email, names, groups). No I/O.
 */
import { ADMIN_GROUP } from './permissions.js';

/** Which claims say who the user is, from the `api.openid` settings. */
export interface ClaimMapping {
  emailClaim: string;
  nameClaim: string;
  /** Empty: groups are kept as Junction has them. */
  groupsClaim: string;
  /** Values of the groups claim that mean the admin group. */
  adminGroups: readonly string[];
}

/** The user the claims describe; `groups` is null when the mapping leaves groups to Junction. */
export interface ClaimedUser {
  email: string;
  firstname: string;
  surname: string;
  groups: string[] | null;
}

/**
 * The value at a dotted path (`resource_access.junction.roles`). A key that itself holds dots (Keycloak's client ids
 * may) is found too: at each level the longest key matching the remaining path wins.
 */
export function claimAt(claims: unknown, path: string): unknown {
  if (path === '') return undefined;
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return undefined;
  const record = claims as Record<string, unknown>;
  if (Object.hasOwn(record, path)) return record[path];
  const parts = path.split('.');
  for (let take = parts.length - 1; take >= 1; take--) {
    const key = parts.slice(0, take).join('.');
    if (Object.hasOwn(record, key)) {
      const found = claimAt(record[key], parts.slice(take).join('.'));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The groups a claim value names: a list of names or one name; other shapes name none. */
function groupsOf(value: unknown, adminGroups: readonly string[]): string[] {
  const names = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const groups = names.filter((name): name is string => typeof name === 'string' && name.trim() !== '').map((name) => name.trim());
  const mapped = groups.map((name) => (adminGroups.includes(name) ? ADMIN_GROUP : name));
  return [...new Set(mapped)];
}

/** The user named by the claims, or a problem in words when they name no usable email. */
export function claimedUser(claims: Record<string, unknown>, mapping: ClaimMapping): ClaimedUser | { problem: string } {
  const email = text(claimAt(claims, mapping.emailClaim)).toLowerCase();
  if (email === '') return { problem: `the provider sent no ${mapping.emailClaim} claim (set api.openid.emailClaim, or ask for the email scope)` };
  if (!SIMPLE_EMAIL.test(email) || email.length > 254) return { problem: `the ${mapping.emailClaim} claim is not an email address` };
  let firstname = text(claims.given_name);
  let surname = text(claims.family_name);
  if (firstname === '' && surname === '') {
    const full = text(claimAt(claims, mapping.nameClaim));
    const space = full.lastIndexOf(' ');
    [firstname, surname] = space > 0 ? [full.slice(0, space), full.slice(space + 1)] : [full, ''];
  }
  if (firstname === '') firstname = email.slice(0, email.indexOf('@'));
  const groups = mapping.groupsClaim === '' ? null : groupsOf(claimAt(claims, mapping.groupsClaim), mapping.adminGroups);
  return { email, firstname: firstname.slice(0, 100), surname: surname.slice(0, 100), groups };
}
