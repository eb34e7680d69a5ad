/** The first-run password change: the built-in account's default password must be replaced before anything else. */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Button, Center, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useSession } from '../../stores/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { usePageTitle } from '../../components/page-title';
import { NewPasswordFields } from '../../components/PasswordPairFields';

const MIN_LENGTH = 8;

export function ChangePasswordPage() {
  usePageTitle('Choose a new password');
  const user = useSession((s) => s.user);
  const changePassword = useSession((s) => s.changePassword);
  const signOut = useSession((s) => s.signOut);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mismatch = confirm !== '' && confirm !== password;
  const tooShort = password !== '' && password.length < MIN_LENGTH;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (mismatch || tooShort) return;
    setBusy(true);
    setError(null);
    changePassword(password).catch((err: unknown) => {
      setError(err);
      setBusy(false);
    });
  };
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w={440}>
        <Stack gap="xs" mb="md">
          <Title order={1} size="h2">
            Choose a new password
          </Title>
          <Text size="sm">
            {user?.email} is still using its first-run password. Choose a new one before you continue: anyone who has read the installation guide knows the old one.
          </Text>
        </Stack>
        <form onSubmit={submit} aria-label="Change password">
          <Stack>
            <ErrorAlert error={error} action="change the password" />
            <NewPasswordFields
              pair={{ password, confirm, setPassword, setConfirm }}
              description="Long passphrases are best; the server also refuses common passwords."
              errors={{ password: tooShort ? `Use at least ${MIN_LENGTH} characters` : undefined, confirm: mismatch ? 'The two passwords are different' : undefined }}
              cols={1}
            />
            <Group justify="space-between">
              <Button variant="subtle" onClick={() => void signOut()}>
                Sign out
              </Button>
              <Button type="submit" loading={busy} disabled={mismatch || tooShort || password === ''}>
                Change password
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
