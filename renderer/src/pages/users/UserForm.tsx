/**
 * Add or edit a console user (admins): identity, groups, password (or, for a new user, an invitation to choose one
 * through a set-password link), SMS number and report e-mails.
 */
import type { FormEvent } from 'react';
import { Alert, Checkbox, Fieldset, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import type { PublicUser, UserCreateInput, UserUpdateInput } from '../../../../service/contracts/users';
import { FormButtons } from '../../components/FormButtons';
import { PasswordPairFields } from '../../components/PasswordPairFields';
import { SaveProblems } from '../../components/SaveProblems';
import { useFormState } from '../../components/form-errors';
import { passwordProblems } from '../../data/password-rules';
import { REPORT_SCHEDULE } from './report-schedule';

export const ADMIN_GROUP = 'admin';
const FIELDS = ['email', 'firstname', 'surname', 'groups', 'password', 'msisdn', 'dailyReport', 'weeklyReport', 'passwordChangeRequired'] as const;
const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.@-]{0,63}$/;
const MSISDN = /^\+?[0-9]{6,15}$/;
// Deliberately loose: the server checks the address properly; this catches a missing @ before a round trip.
const EMAIL = /^[^\s@]+@[^\s@]+$/;

interface Values {
  email: string;
  firstname: string;
  surname: string;
  groups: string[];
  password: string;
  confirm: string;
  msisdn: string;
  dailyReport: boolean;
  weeklyReport: boolean;
  passwordChangeRequired: boolean;
  /** A new user without a password: they set one through a link. */
  invite: boolean;
}

function initialValues(user: PublicUser | null): Values {
  return {
    email: user?.email ?? '',
    firstname: user?.firstname ?? '',
    surname: user?.surname ?? '',
    groups: user?.groups ?? [],
    password: '',
    confirm: '',
    msisdn: user?.msisdn ?? '',
    dailyReport: user?.dailyReport ?? false,
    weeklyReport: user?.weeklyReport ?? false,
    // New accounts get a password someone else chose: by default they replace it at their first sign-in.
    passwordChangeRequired: user?.passwordChangeRequired ?? true,
    invite: false,
  };
}

function localProblems(v: Values, user: PublicUser | null): Record<string, string> {
  const problems: Record<string, string> = {};
  const email = v.email.trim();
  if (email === '') problems.email = 'Enter an email address';
  else if (!EMAIL.test(email)) problems.email = 'Enter a whole email address, such as name@clinic.example';
  if (v.firstname.trim() === '') problems.firstname = 'Enter a first name';
  if (v.surname.trim() === '') problems.surname = 'Enter a surname';
  const badGroup = v.groups.find((g) => !GROUP_NAME.test(g));
  if (badGroup !== undefined) problems.groups = `"${badGroup}" is not a valid group name: start with a letter or digit, then letters, digits, spaces or _ . @ -`;
  else if (user?.builtin === true && !v.groups.includes(ADMIN_GROUP)) problems.groups = 'The built-in administrator must stay in the admin group';
  if ((user === null && !v.invite) || v.password !== '' || v.confirm !== '') {
    Object.assign(problems, passwordProblems(v.password, v.confirm, email));
  }
  if (v.msisdn.trim() !== '' && !MSISDN.test(v.msisdn.trim())) problems.msisdn = 'Use the international number in digits, such as +27821234567';
  return problems;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

function createInput(v: Values): UserCreateInput {
  const input: UserCreateInput = {
    email: v.email.trim(),
    firstname: v.firstname.trim(),
    surname: v.surname.trim(),
    groups: v.groups,
    dailyReport: v.dailyReport,
    weeklyReport: v.weeklyReport,
  };
  // An invited user chooses their own password, so there is nothing to change at the first sign-in.
  if (!v.invite) Object.assign(input, { password: v.password, passwordChangeRequired: v.passwordChangeRequired });
  if (v.msisdn.trim() !== '') input.msisdn = v.msisdn.trim();
  return input;
}

function updateInput(user: PublicUser, v: Values): UserUpdateInput {
  const changes: UserUpdateInput = {};
  if (v.email.trim().toLowerCase() !== user.email) changes.email = v.email.trim();
  if (v.firstname.trim() !== user.firstname) changes.firstname = v.firstname.trim();
  if (v.surname.trim() !== user.surname) changes.surname = v.surname.trim();
  if (!sameSet(v.groups, user.groups)) changes.groups = v.groups;
  if (v.password !== '') changes.password = v.password;
  const msisdn = v.msisdn.trim();
  if (msisdn !== (user.msisdn ?? '')) changes.msisdn = msisdn === '' ? null : msisdn;
  if (v.dailyReport !== user.dailyReport) changes.dailyReport = v.dailyReport;
  if (v.weeklyReport !== user.weeklyReport) changes.weeklyReport = v.weeklyReport;
  if (v.passwordChangeRequired !== user.passwordChangeRequired) changes.passwordChangeRequired = v.passwordChangeRequired;
  // A new password clears the flag on the server unless it is sent again.
  if (v.password !== '' && v.passwordChangeRequired) changes.passwordChangeRequired = true;
  return changes;
}

export interface UserFormProps {
  /** null adds a new user. */
  user: PublicUser | null;
  /** The signed-in user's email, to warn before they take away their own admin rights. */
  me: string | undefined;
  groupSuggestions: string[];
  save: (user: PublicUser | null, input: UserCreateInput | UserUpdateInput) => Promise<PublicUser>;
  onSaved: (user: PublicUser) => void;
  onCancel: () => void;
}

export function UserForm({ user, me, groupSuggestions, save, onSaved, onCancel }: UserFormProps) {
  const editing = user !== null;
  const { values, set, text, fieldError, server, form, busy, check, saving } = useFormState<Values>(() => initialValues(user), FIELDS);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!check(localProblems(values, user))) return;
    const input = user === null ? createInput(values) : updateInput(user, values);
    if (Object.keys(input).length === 0) {
      onCancel();
      return;
    }
    saving(() => save(user, input), onSaved);
  };

  const makesAdmin = values.groups.includes(ADMIN_GROUP);
  const dropsOwnAdmin = editing && !user.builtin && user.email === me && user.groups.includes(ADMIN_GROUP) && !makesAdmin;

  return (
    <form onSubmit={submit} aria-label={editing ? `Edit user ${user.email}` : 'New user'} noValidate ref={form}>
      <Stack>
        <SaveProblems server={server} action="save the user" title="The user was not saved" />
        <TextInput label="Email" required type="email" value={values.email} onChange={text('email')} error={fieldError('email')} autoComplete="off" data-autofocus />
        <SimpleGrid cols={2}>
          <TextInput label="First name" required value={values.firstname} onChange={text('firstname')} error={fieldError('firstname')} autoComplete="off" />
          <TextInput label="Surname" required value={values.surname} onChange={text('surname')} error={fieldError('surname')} autoComplete="off" />
        </SimpleGrid>
        <TagsInput
          label="Groups"
          description="Pick a group, or type a new name and press Enter. Channels grant groups the right to view and re-run transactions."
          data={groupSuggestions}
          value={values.groups}
          onChange={(groups) => set('groups', groups)}
          error={fieldError('groups')}
          clearable
          acceptValueOnBlur
        />
        {makesAdmin && !dropsOwnAdmin && (
          <Alert color="yellow" title="admin is a special group">
            Members of admin are super users: they can change channels, clients, users and settings, and read every transaction, including patient data in
            message bodies.
          </Alert>
        )}
        {dropsOwnAdmin && (
          <Alert color="orange" title="You are removing your own admin rights">
            After saving, you can no longer open the administration pages or undo this yourself.
          </Alert>
        )}
        <Fieldset legend={editing ? 'Password (leave empty to keep the current one)' : 'Password'}>
          <Stack gap="xs">
            {!editing && (
              <Switch
                label="Invite: the user chooses their own password"
                description="You get a link to send them; they cannot sign in until they have used it (it expires after 7 days)"
                checked={values.invite}
                onChange={(e) => set('invite', e.currentTarget.checked)}
              />
            )}
            {editing && user.locked && (
              <Text size="sm" c="dimmed">
                This user was invited and has not chosen a password yet. Set one here, or give them a new link from the users list.
              </Text>
            )}
            {!values.invite && (
              <>
                <PasswordPairFields
                  password={values.password}
                  confirm={values.confirm}
                  onPasswordChange={(value) => set('password', value)}
                  onConfirmChange={(value) => set('confirm', value)}
                  descriptions={{ password: 'At least 8 characters' }}
                  errors={{ password: fieldError('password'), confirm: fieldError('confirm') }}
                  required={!editing}
                />
                <Checkbox
                  label="Ask for a new password at the next sign-in"
                  checked={values.passwordChangeRequired}
                  onChange={(e) => set('passwordChangeRequired', e.currentTarget.checked)}
                />
              </>
            )}
          </Stack>
        </Fieldset>
        <Fieldset legend="Notifications">
          <Stack gap="sm">
            <TextInput
              label="Mobile number (MSISDN)"
              description="For SMS alerts; international format in digits, such as +27821234567"
              value={values.msisdn}
              onChange={text('msisdn')}
              error={fieldError('msisdn')}
              autoComplete="off"
              maw={360}
            />
            <Switch label="Daily report" description="An e-mail each morning with yesterday's transactions by status" checked={values.dailyReport} onChange={(e) => set('dailyReport', e.currentTarget.checked)} />
            <Switch label="Weekly report" description="An e-mail each Monday morning covering the previous week" checked={values.weeklyReport} onChange={(e) => set('weeklyReport', e.currentTarget.checked)} />
            <Text size="xs" c="dimmed">
              {REPORT_SCHEDULE}
            </Text>
          </Stack>
        </Fieldset>
        {editing && user.builtin && (
          <Text size="sm" c="dimmed">
            This is the built-in administrator: it cannot be deleted and always stays in the admin group.
          </Text>
        )}
        <FormButtons submitLabel="Save user" busy={busy} onCancel={onCancel} />
      </Stack>
    </form>
  );
}
