/** Alert rules: when a transaction of this channel gets a given status (or auto retry gives up), who is told and how. */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Alert, Anchor, Autocomplete, Button, Fieldset, Group, MultiSelect, NativeSelect, NumberInput, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import type { AlertCondition, AlertMaxFrequency, AlertMethod } from '../../../../service/contracts/channels';
import { useChannels } from '../../stores/channels';
import type { ChannelLookups } from '../../stores/channels';
import { alertGroupOptions } from './alert-groups';
import { FAILS_STATUS, newAlert, newRecipient } from './form';
import type { AlertForm, RecipientForm } from './form';
import { bind, fieldId } from './fields';
import type { TabProps } from './fields';
import { numberValue } from './BasicsTab';

/** What sets an alert off, in words: "fails" is a status rule on any error answer (stored as OpenHIM's `5xx`). */
const CONDITIONS = [
  { value: 'fails', label: 'A transaction fails (an error answer, or no answer)' },
  { value: 'status', label: 'A transaction gets a particular response status' },
  { value: 'auto-retry-max-attempted', label: 'Automatic retry gave up (maximum attempts reached)' },
  { value: 'refusals', label: 'Requests or messages are refused on the channel' },
];

const METHODS = [
  { value: 'email', label: 'Email' },
  { value: 'sms', label: 'SMS' },
];

const FREQUENCIES = [
  { value: 'no max', label: 'No limit' },
  { value: '1 per hour', label: 'Once an hour' },
  { value: '1 per day', label: 'Once a day' },
];

/** What the Groups field says about where its choices come from, with a link to the page that keeps them. */
function groupsHelp(lookups: ChannelLookups): ReactNode {
  if (lookups.loaded && lookups.contactGroups === null) return 'Contact groups could not be loaded, so groups are shown by id. Every member of a group is told.';
  const where = (
    <>
      Groups are kept on the{' '}
      <Anchor component={Link} to="/contact-groups" size="xs">
        Contact groups
      </Anchor>{' '}
      page.
    </>
  );
  if (lookups.contactGroups !== null && lookups.contactGroups.length === 0) return <>No contact group yet. {where}</>;
  return <>Every member of a chosen contact group is told. {where}</>;
}

function AlertCard({ alert, index, props }: { alert: AlertForm; index: number; props: TabProps }) {
  const { form, update, errors } = props;
  const lookups = useChannels((s) => s.lookups);
  const emails = lookups.users.map((u) => u.email);
  const at = (field: string) => `alerts.${index}.${field}`;
  const change = (patch: Partial<AlertForm>) => update({ alerts: form.alerts.map((a, j) => (j === index ? { ...a, ...patch } : a)) });
  const changeUser = (i: number, patch: Partial<RecipientForm>) => change({ users: alert.users.map((u, j) => (j === i ? { ...u, ...patch } : u)) });
  const number = index + 1;
  return (
    <Fieldset legend={`Alert ${number}`}>
      <Stack gap="sm">
        <SimpleGrid cols={3}>
          <NativeSelect
            label="Alert when"
            description="What sets the alert off"
            data={CONDITIONS}
            value={alert.condition === 'status' && alert.fails ? 'fails' : alert.condition}
            onChange={(e) => {
              const choice = e.currentTarget.value;
              // Leaving "fails" for a particular status starts from an empty one rather than the 5xx it stood for.
              if (choice === 'fails') change({ condition: 'status', fails: true, status: FAILS_STATUS });
              else change({ condition: choice as AlertCondition, fails: false, ...(alert.fails ? { status: '' } : {}) });
            }}
            {...bind(errors, at('condition'))}
          />
          {alert.condition === 'status' && !alert.fails ? (
            <TextInput
              label="Response status"
              required
              description="Such as 500, or a range such as 4xx"
              value={alert.status}
              onChange={(e) => change({ status: e.currentTarget.value })}
              {...bind(errors, at('status'))}
            />
          ) : (
            <div />
          )}
          {alert.condition === 'refusals' ? (
            <Text size="sm" c="dimmed">
              Any refused request or message sets it off; see them on the Refused page.
            </Text>
          ) : (
          <NumberInput
            label="Failure rate above (%)"
            description="Optional. Empty: whatever the failure rate."
            min={0}
            max={100}
            allowNegative={false}
            value={alert.failureRate}
            onChange={(v) => change({ failureRate: numberValue(v) })}
            {...bind(errors, at('failureRate'))}
          />
          )}
        </SimpleGrid>
        <MultiSelect
          id={fieldId(at('groups'))}
          label="Groups to notify"
          description={groupsHelp(lookups)}
          data={alertGroupOptions(lookups.contactGroups, alert.groups)}
          value={alert.groups}
          onChange={(groups) => change({ groups })}
          error={errors.within(at('groups'))}
          searchable
          nothingFoundMessage="No contact group with that name"
          clearable
          comboboxProps={{ withinPortal: true }}
        />
        <Stack gap="xs">
          <Text size="sm" fw={500}>
            Users to notify
          </Text>
          <Text size="xs" c="dimmed">
            {alert.users.length === 0
              ? 'No individual users.'
              : 'Each by their email address. SMS needs a phone number on the user’s account. “At most” limits how often they are told.'}
          </Text>
          {alert.users.map((user, i) => {
            const u = (field: string) => `${at('users')}.${i}.${field}`;
            return (
              <Group key={user.key} align="flex-start" wrap="nowrap">
                <Autocomplete
                  label={`User ${i + 1}`}
                  data={emails}
                  value={user.user}
                  onChange={(value) => changeUser(i, { user: value })}
                  style={{ flex: 2 }}
                  {...bind(errors, u('user'))}
                />
                <NativeSelect
                  label={`Send user ${i + 1} by`}
                  data={METHODS}
                  value={user.method}
                  onChange={(e) => changeUser(i, { method: e.currentTarget.value as AlertMethod })}
                  style={{ flex: 1 }}
                  {...bind(errors, u('method'))}
                />
                <NativeSelect
                  label={`Alert user ${i + 1} at most`}
                  data={FREQUENCIES}
                  value={user.maxAlerts}
                  onChange={(e) => changeUser(i, { maxAlerts: e.currentTarget.value as AlertMaxFrequency })}
                  style={{ flex: 1 }}
                  {...bind(errors, u('maxAlerts'))}
                />
                <Button
                  variant="subtle"
                  color="red"
                  mt={24}
                  aria-label={`Remove user ${i + 1} from alert ${number}`}
                  onClick={() => change({ users: alert.users.filter((_, j) => j !== i) })}
                >
                  Remove
                </Button>
              </Group>
            );
          })}
          <Group justify="space-between">
            <Button variant="light" size="xs" onClick={() => change({ users: [...alert.users, newRecipient()] })}>
              Add user to alert {number}
            </Button>
            <Button variant="subtle" color="red" size="xs" onClick={() => update({ alerts: form.alerts.filter((_, j) => j !== index) })}>
              Remove alert {number}
            </Button>
          </Group>
        </Stack>
      </Stack>
    </Fieldset>
  );
}

/** Email or SMS that is not set up, said where alerts are chosen: an alert by either would be recorded and never sent. */
function MessagingWarning({ form }: { form: TabProps['form'] }) {
  const messaging = useChannels((s) => s.lookups.messaging);
  if (messaging === null) return null;
  const smsUsed = form.alerts.some((a) => a.users.some((u) => u.method === 'sms'));
  const problems = [
    messaging.email === undefined ? null : `Email is not set up (${messaging.email}): alerts by email are recorded on the Alerts and messages page but not sent.`,
    messaging.sms === undefined || !smsUsed ? null : `SMS is not set up (${messaging.sms}): alerts by SMS are recorded but not sent.`,
  ].filter((p) => p !== null);
  if (problems.length === 0) return null;
  return (
    <Alert color="yellow" title={messaging.email === undefined ? 'SMS is not set up' : 'Email is not set up'} data-testid="alerts-messaging-warning">
      <Stack gap={4}>
        {problems.map((p) => (
          <Text key={p} size="sm">
            {p}
          </Text>
        ))}
        <Text size="sm">
          An administrator sets it up in Junction&apos;s configuration; see{' '}
          <Anchor component={Link} to="/notifications" size="sm" underline="always">
            Alerts and messages
          </Anchor>
          .
        </Text>
      </Stack>
    </Alert>
  );
}

export function AlertsTab(props: TabProps) {
  const { form, update } = props;
  return (
    <Stack>
      <MessagingWarning form={form} />
      <Text size="sm" c="dimmed">
        Alerts are checked every minute. Each rule says what sets it off (a transaction that fails, a particular response status, automatic
        retries given up, refused requests) and who is told.
      </Text>
      {form.alerts.length === 0 && <Text size="sm">This channel has no alerts.</Text>}
      {form.alerts.map((alert, i) => (
        <AlertCard key={alert.key} alert={alert} index={i} props={props} />
      ))}
      <Group>
        <Button variant="light" onClick={() => update({ alerts: [...form.alerts, newAlert()] })}>
          Add alert
        </Button>
      </Group>
    </Stack>
  );
}
