/** Sends a test email or SMS now, to check the mail server or SMS gateway settings, and says whether it went and why not. */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Button, Group, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import type { AlertMethod } from '../../../../service/contracts/channels';
import type { Notification } from '../../../../service/contracts/notifications';
import { sendTestNotification } from '../../api/notifications';
import { ErrorAlert } from '../../components/ErrorAlert';
import { splitErrors } from '../../components/form-errors';
import { testAddressProblem, testOutcome } from './notification-view';

const METHODS = [
  { value: 'email', label: 'Email' },
  { value: 'sms', label: 'SMS' },
];

const formatTime = (iso: string): string => new Date(iso).toLocaleString();

export function TestMessageForm({ onSent }: { onSent: (record: Notification) => void }) {
  const [method, setMethod] = useState<AlertMethod>('email');
  const [to, setTo] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<Notification | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = testAddressProblem(method, to);
    setProblem(found);
    if (found !== null) return;
    setBusy(true);
    setError(null);
    setResult(null);
    sendTestNotification({ method, to: to.trim() }).then(
      (record) => {
        setBusy(false);
        setResult(record);
        onSent(record);
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };

  const outcome = result === null ? null : testOutcome(result, formatTime);
  // The server's refusal of the address goes under the field, like the form's own check.
  const server = splitErrors(error, ['to']);
  return (
    <form onSubmit={submit} aria-label="Send test message" noValidate>
      <Stack gap="sm">
        <Title order={2} size="h4">
          Send test message
        </Title>
        <Text size="sm" c="dimmed">
          Checks the email (SMTP) or SMS gateway settings: the message is sent now and recorded below like any other.
        </Text>
        <Group align="flex-start">
          <NativeSelect
            label="Send by"
            data={METHODS}
            value={method}
            onChange={(e) => {
              setMethod(e.currentTarget.value as AlertMethod);
              setProblem(null);
            }}
            w={140}
          />
          <TextInput
            label={method === 'email' ? 'Email address' : 'Mobile number'}
            description={method === 'email' ? 'Where the test email goes' : 'International format in digits, such as +27821234567'}
            required
            type={method === 'email' ? 'email' : 'tel'}
            value={to}
            onChange={(e) => {
              setTo(e.currentTarget.value);
              setProblem(null);
            }}
            error={problem ?? server.fields.to}
            w={360}
          />
          <Button type="submit" loading={busy} mt={46}>
            Send test
          </Button>
        </Group>
        <ErrorAlert error={server.general} action="send the test message" />
        <div role="status" aria-live="polite">
          {outcome !== null && (
            <Alert color={outcome.sent ? 'teal' : 'red'} title={outcome.title}>
              {outcome.text}
            </Alert>
          )}
        </div>
      </Stack>
    </form>
  );
}
