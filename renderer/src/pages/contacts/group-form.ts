/**
 * The contact group editor's form model: a stored group as a form, a form as the POST and PUT bodies, and the problems
 * found before saving (the server checks the same and more; these save a round trip and sit next to their field).
 */
import type { AlertMaxFrequency, AlertMethod } from '../../../../service/contracts/channels';
import type { ContactGroup, ContactGroupCreateInput, ContactGroupUpdateInput } from '../../../../service/contracts/contact-groups';

/** One recipient row; `key` keeps React's rows stable while rows are added and removed. */
export interface RecipientRow {
  key: string;
  user: string;
  method: AlertMethod;
  maxAlerts: AlertMaxFrequency;
}

/** One recipient who is not a user: an email address or a phone number. */
export interface ExternalRow {
  key: string;
  address: string;
  method: AlertMethod;
  maxAlerts: AlertMaxFrequency;
}

export interface GroupForm {
  group: string;
  users: RecipientRow[];
  external: ExternalRow[];
}

export const METHOD_OPTIONS: { value: AlertMethod; label: string }[] = [
  { value: 'email', label: 'Email' },
  { value: 'sms', label: 'SMS' },
];

/** OpenHIM's three `maxAlerts` values, in words. */
export const MAX_ALERTS_OPTIONS: { value: AlertMaxFrequency; label: string }[] = [
  { value: 'no max', label: 'No limit' },
  { value: '1 per hour', label: 'Once an hour' },
  { value: '1 per day', label: 'Once a day' },
];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MSISDN = /^\+?[0-9]{6,15}$/;

let nextKey = 0;
/** A new, empty recipient row: by email, no limit (OpenHIM's default). */
export function newRecipientRow(): RecipientRow {
  nextKey += 1;
  return { key: `r${nextKey}`, user: '', method: 'email', maxAlerts: 'no max' };
}

/** A new, empty row for someone who is not a user: by email, no limit. */
export function newExternalRow(): ExternalRow {
  nextKey += 1;
  return { key: `x${nextKey}`, address: '', method: 'email', maxAlerts: 'no max' };
}

/** The form for a stored group, or an empty one for a new group. */
export function groupForm(group: ContactGroup | null): GroupForm {
  if (group === null) return { group: '', users: [], external: [] };
  return {
    group: group.group,
    users: group.users.map((u) => ({ ...newRecipientRow(), user: u.user, method: u.method, maxAlerts: u.maxAlerts })),
    external: (group.external ?? []).map((e) => ({ ...newExternalRow(), address: e.address, method: e.method, maxAlerts: e.maxAlerts })),
  };
}

function recipients(form: GroupForm) {
  return form.users.map((u) => ({ user: u.user.trim(), method: u.method, maxAlerts: u.maxAlerts }));
}

/** A phone number as the server keeps it: spaces, dashes, dots and brackets dropped. */
function phoneNumber(text: string): string {
  return text.trim().replace(/[\s\-.()]/g, '');
}

function externals(form: GroupForm) {
  return form.external.map((e) => ({ address: e.method === 'sms' ? phoneNumber(e.address) : e.address.trim(), method: e.method, maxAlerts: e.maxAlerts }));
}

/** The `POST /groups` body. */
export function createGroupBody(form: GroupForm): ContactGroupCreateInput {
  const external = externals(form);
  return { group: form.group.trim(), users: recipients(form), ...(external.length === 0 ? {} : { external }) };
}

/** The `PUT /groups/:id` body: only what changed (the recipients go whole, as the API replaces the list). */
export function updateGroupBody(group: ContactGroup, form: GroupForm): ContactGroupUpdateInput {
  const changes: ContactGroupUpdateInput = {};
  if (form.group.trim() !== group.group) changes.group = form.group.trim();
  const users = recipients(form);
  const same = users.length === group.users.length && users.every((u, i) => {
    const was = group.users[i];
    return was !== undefined && was.user === u.user && was.method === u.method && was.maxAlerts === u.maxAlerts;
  });
  if (!same) changes.users = users;
  const external = externals(form);
  const before = group.external ?? [];
  const sameExternal = external.length === before.length && external.every((e, i) => {
    const was = before[i];
    return was !== undefined && was.address === e.address && was.method === e.method && was.maxAlerts === e.maxAlerts;
  });
  if (!sameExternal) changes.external = external;
  return changes;
}

/**
 * Problems keyed like the server's paths (`group`, `users.1.user`): a blank name, a row with no user, and a user and
 * method listed twice (they would get every alert twice). Any of these stops the save.
 */
export function groupProblems(form: GroupForm): Record<string, string> {
  const problems: Record<string, string> = {};
  if (form.group.trim() === '') problems.group = 'Enter a name for the group';
  const seen = new Map<string, number>();
  form.users.forEach((row, i) => {
    const user = row.user.trim();
    if (user === '') {
      problems[`users.${i}.user`] = 'Choose a user';
      return;
    }
    const key = `${user.toLowerCase()}\u0000${row.method}`;
    const first = seen.get(key);
    if (first !== undefined) problems[`users.${i}.user`] = `${user} is already recipient ${first + 1} by ${row.method === 'sms' ? 'SMS' : 'email'}`;
    else seen.set(key, i);
  });
  const seenExternal = new Map<string, number>();
  externals(form).forEach((row, i) => {
    const field = `external.${i}.address`;
    if (row.address === '') {
      problems[field] = row.method === 'sms' ? 'Enter a mobile number' : 'Enter an email address';
      return;
    }
    if (row.method === 'email' && !EMAIL.test(row.address)) problems[field] = 'Must be an email address, such as support@vendor.example';
    else if (row.method === 'sms' && !MSISDN.test(row.address)) problems[field] = 'Must be a mobile number: 6 to 15 digits, with an optional leading +';
    const key = `${row.address.toLowerCase()}\u0000${row.method}`;
    const first = seenExternal.get(key);
    if (first !== undefined) problems[field] ??= `${row.address} is already other recipient ${first + 1} by ${row.method === 'sms' ? 'SMS' : 'email'}`;
    else seenExternal.set(key, i);
  });
  return problems;
}

/**
 * Warnings by row index that do not stop the save: SMS to a user who has no mobile number yet (the alert cannot reach
 * them until one is added to their account). `phones` maps each known user's email, lower case, to whether they have
 * a number; users it does not know are not judged.
 */
export function recipientWarnings(form: GroupForm, phones: ReadonlyMap<string, boolean>): Record<number, string> {
  const warnings: Record<number, string> = {};
  form.users.forEach((row, i) => {
    const user = row.user.trim();
    if (row.method === 'sms' && phones.get(user.toLowerCase()) === false) warnings[i] = `${user} has no mobile number yet, so SMS alerts cannot reach them`;
  });
  return warnings;
}
