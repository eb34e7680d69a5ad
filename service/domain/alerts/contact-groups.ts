/**
 * Contact group rules, pure: the record a body becomes, what makes it invalid, and which channels' alerts name a
 * group (those must let go of it before it may be deleted, or their alerts would name a group that is gone).
 */
import type { ValidationProblem } from '../../contracts/api.js';
import type { ChannelUsingGroup, ContactGroupUserInput, ExternalRecipient, ExternalRecipientInput } from '../../contracts/contact-groups.js';
import type { AlertRecipient } from '../../contracts/channels.js';
import { addressProblem, phoneNumber } from './addresses.js';

/** What a channel offers the in-use check: its alerts' group ids, and how a refusal names it. */
export interface GroupReferrer {
  _id: string;
  name: string;
  status: string;
  alerts: readonly { groups: readonly string[] }[];
}

/** A group's name as stored: surrounding blanks are never part of a name (two groups must not differ by a space). */
export function groupName(name: string): string {
  return name.trim();
}

/** The recipients as stored: `maxAlerts` defaults to `no max`, as in OpenHIM; sub-document ids are dropped. */
export function groupRecipients(users: readonly ContactGroupUserInput[]): AlertRecipient[] {
  return users.map((u) => ({ user: u.user.trim(), method: u.method, maxAlerts: u.maxAlerts ?? 'no max' }));
}

/** The external recipients as stored: an email trimmed, a phone number without its spaces and dashes, `maxAlerts` defaulted. */
export function groupExternal(external: readonly ExternalRecipientInput[]): ExternalRecipient[] {
  return external.map((e) => ({ address: e.method === 'sms' ? phoneNumber(e.address) : e.address.trim(), method: e.method, maxAlerts: e.maxAlerts ?? 'no max' }));
}

/** Problems of the external recipients about to be stored: an address that does not suit its method, or one listed twice. */
export function externalProblems(external: readonly ExternalRecipient[] | undefined): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const seen = new Map<string, number>();
  external?.forEach((e, i) => {
    const problem = addressProblem(e.method, e.address);
    if (problem !== null) problems.push({ path: `body.external.${i}.address`, message: problem });
    const key = `${e.address.toLowerCase()}\u0000${e.method}`;
    const first = seen.get(key);
    if (first !== undefined) problems.push({ path: `body.external.${i}`, message: `repeats body.external.${first} (the same address and method); list each recipient once` });
    else seen.set(key, i);
  });
  return problems;
}

/**
 * Problems of a group about to be stored (`name` and `users` as groupName and groupRecipients give them; undefined
 * = not being changed). A recipient listed twice with the same method would get every alert twice, so it is refused.
 */
export function groupProblems(name: string | undefined, users: readonly AlertRecipient[] | undefined): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  if (name === '') problems.push({ path: 'body.group', message: 'must not be blank' });
  const seen = new Map<string, number>();
  users?.forEach((u, i) => {
    if (u.user === '') problems.push({ path: `body.users.${i}.user`, message: 'must not be blank' });
    const key = `${u.user.toLowerCase()}\u0000${u.method}`;
    const first = seen.get(key);
    if (first !== undefined) problems.push({ path: `body.users.${i}`, message: `repeats body.users.${first} (the same user and method); list each recipient once` });
    else seen.set(key, i);
  });
  return problems;
}

/** The channels (deleted ones included: a restore brings their alerts back) whose alerts name the group, by name. */
export function channelsUsingGroup(channels: readonly GroupReferrer[], groupId: string): ChannelUsingGroup[] {
  return channels
    .filter((c) => c.alerts.some((a) => a.groups.includes(groupId)))
    .map((c) => ({ _id: c._id, name: c.name, status: c.status }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * A problem for each group id a channel write adds that names no group (`unknown`: the ids no group has), at the body
 * path that holds it. Ids the channel already had are let through, so a channel saved as it was fetched is never
 * refused for an earlier state.
 */
export function unknownGroupRefs(
  alerts: readonly { groups: readonly string[] }[],
  before: readonly { groups: readonly string[] }[],
  unknown: ReadonlySet<string>,
): ValidationProblem[] {
  const had = new Set(before.flatMap((a) => a.groups));
  const problems: ValidationProblem[] = [];
  alerts.forEach((alert, i) =>
    alert.groups.forEach((id, j) => {
      if (unknown.has(id) && !had.has(id)) problems.push({ path: `body.alerts.${i}.groups.${j}`, message: `names no contact group (no group has _id ${id}); create it with POST /groups or remove it` });
    }),
  );
  return problems;
}
