/** Add or edit a contact group (admins): its name and its recipients, each a user, a method and how often at most. */
import type { FormEvent } from 'react';
import { Button, Fieldset, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import type { AlertMaxFrequency, AlertMethod } from '../../../../service/contracts/channels';
import type { ContactGroup, ContactGroupCreateInput, ContactGroupUpdateInput } from '../../../../service/contracts/contact-groups';
import type { PublicUser } from '../../../../service/contracts/users';
import { FormButtons } from '../../components/FormButtons';
import { SaveProblems } from '../../components/SaveProblems';
import { useFormState } from '../../components/form-errors';
import { MAX_ALERTS_OPTIONS, METHOD_OPTIONS, createGroupBody, groupForm, groupProblems, newExternalRow, newRecipientRow, recipientWarnings, updateGroupBody } from './group-form';
import type { ExternalRow, GroupForm, RecipientRow } from './group-form';

const FIELDS = ['group', 'users', 'external'] as const;

export interface ContactGroupFormProps {
  /** null adds a new group. */
  group: ContactGroup | null;
  /** The users who can be recipients; null when they could not be loaded (emails are then typed). */
  users: PublicUser[] | null;
  save: (group: ContactGroup | null, input: ContactGroupCreateInput | ContactGroupUpdateInput) => Promise<ContactGroup>;
  onSaved: (group: ContactGroup) => void;
  onCancel: () => void;
}

/** The user choices of one row: every user by email, and the row's own user even if no account has it any more. */
function userOptions(users: PublicUser[], current: string) {
  const options = [{ value: '', label: 'Choose a user…', disabled: true }, ...users.map((u) => ({ value: u.email, label: `${u.email} (${u.firstname} ${u.surname})` }))];
  if (current !== '' && !users.some((u) => u.email === current)) options.push({ value: current, label: `${current} (no such user)` });
  return options;
}

export function ContactGroupForm({ group, users, save, onSaved, onCancel }: ContactGroupFormProps) {
  const editing = group !== null;
  const { values, set, text, fieldError, server, form, busy, check, saving } = useFormState<GroupForm>(() => groupForm(group), FIELDS);
  const phones = new Map((users ?? []).map((u) => [u.email.toLowerCase(), (u.msisdn ?? '') !== '']));
  const warnings = recipientWarnings(values, phones);

  const changeRow = (i: number, patch: Partial<RecipientRow>) => set('users', values.users.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  const changeExternal = (i: number, patch: Partial<ExternalRow>) => set('external', values.external.map((row, j) => (j === i ? { ...row, ...patch } : row)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!check(groupProblems(values))) return;
    const input = group === null ? createGroupBody(values) : updateGroupBody(group, values);
    if (Object.keys(input).length === 0) {
      onCancel();
      return;
    }
    saving(() => save(group, input), onSaved);
  };

  return (
    <form onSubmit={submit} aria-label={editing ? `Edit contact group ${group.group}` : 'New contact group'} noValidate ref={form}>
      <Stack>
        <SaveProblems server={server} action="save the contact group" title="The contact group was not saved" />
        <TextInput
          label="Group name"
          required
          description="How channel alerts name it, such as Lab on call"
          value={values.group}
          onChange={text('group')}
          error={fieldError('group')}
          autoComplete="off"
          data-autofocus
        />
        <Fieldset legend="Recipients">
          <Stack gap="sm">
            <Text size="xs" c="dimmed">
              {values.users.length === 0
                ? 'No recipients yet: an alert sent to this group reaches nobody.'
                : 'Email goes to the user’s address; SMS to the mobile number on their account. “At most” limits how often each is told.'}
            </Text>
            {fieldError('users') !== undefined && (
              <Text size="sm" c="red" role="alert">
                {fieldError('users')}
              </Text>
            )}
            {values.users.map((row, i) => {
              const n = i + 1;
              const userField = `users.${i}.user`;
              return (
                <Stack key={row.key} gap={4}>
                  <Group align="flex-start" wrap="nowrap">
                    {users === null ? (
                      <TextInput label={`Recipient ${n}`} description="The user's email" value={row.user} onChange={(e) => changeRow(i, { user: e.currentTarget.value })} error={fieldError(userField)} style={{ flex: 2 }} />
                    ) : (
                      <NativeSelect label={`Recipient ${n}`} data={userOptions(users, row.user)} value={row.user} onChange={(e) => changeRow(i, { user: e.currentTarget.value })} error={fieldError(userField)} style={{ flex: 2 }} />
                    )}
                    <NativeSelect label={`Send recipient ${n} by`} data={METHOD_OPTIONS} value={row.method} onChange={(e) => changeRow(i, { method: e.currentTarget.value as AlertMethod })} style={{ flex: 1 }} />
                    <NativeSelect
                      label={`Alert recipient ${n} at most`}
                      data={MAX_ALERTS_OPTIONS}
                      value={row.maxAlerts}
                      onChange={(e) => changeRow(i, { maxAlerts: e.currentTarget.value as AlertMaxFrequency })}
                      style={{ flex: 1 }}
                    />
                    <Button variant="subtle" color="red" mt={24} aria-label={`Remove recipient ${n}`} onClick={() => set('users', values.users.filter((_, j) => j !== i))}>
                      Remove
                    </Button>
                  </Group>
                  {warnings[i] !== undefined && (
                    <Text size="xs" c="orange">
                      Note: {warnings[i]}
                    </Text>
                  )}
                </Stack>
              );
            })}
            <Group>
              <Button variant="light" size="xs" onClick={() => set('users', [...values.users, newRecipientRow()])}>
                Add recipient
              </Button>
            </Group>
          </Stack>
        </Fieldset>
        <Fieldset legend="Other recipients">
          <Stack gap="sm">
            <Text size="xs" c="dimmed">
              People who are not console users, such as a vendor or an IT mailing list: an email address, or a mobile number for SMS.
            </Text>
            {fieldError('external') !== undefined && (
              <Text size="sm" c="red" role="alert">
                {fieldError('external')}
              </Text>
            )}
            {values.external.map((row, i) => {
              const n = i + 1;
              return (
                <Group key={row.key} align="flex-start" wrap="nowrap">
                  <TextInput
                    label={row.method === 'sms' ? `Other recipient ${n} mobile number` : `Other recipient ${n} email address`}
                    type={row.method === 'sms' ? 'tel' : 'email'}
                    value={row.address}
                    onChange={(e) => changeExternal(i, { address: e.currentTarget.value })}
                    error={fieldError(`external.${i}.address`)}
                    autoComplete="off"
                    style={{ flex: 2 }}
                  />
                  <NativeSelect label={`Send other recipient ${n} by`} data={METHOD_OPTIONS} value={row.method} onChange={(e) => changeExternal(i, { method: e.currentTarget.value as AlertMethod })} style={{ flex: 1 }} />
                  <NativeSelect
                    label={`Alert other recipient ${n} at most`}
                    data={MAX_ALERTS_OPTIONS}
                    value={row.maxAlerts}
                    onChange={(e) => changeExternal(i, { maxAlerts: e.currentTarget.value as AlertMaxFrequency })}
                    style={{ flex: 1 }}
                  />
                  <Button variant="subtle" color="red" mt={24} aria-label={`Remove other recipient ${n}`} onClick={() => set('external', values.external.filter((_, j) => j !== i))}>
                    Remove
                  </Button>
                </Group>
              );
            })}
            <Group>
              <Button variant="light" size="xs" onClick={() => set('external', [...values.external, newExternalRow()])}>
                Add email address or phone number
              </Button>
            </Group>
          </Stack>
        </Fieldset>
        <FormButtons submitLabel="Save group" busy={busy} onCancel={onCancel} />
      </Stack>
    </form>
  );
}
