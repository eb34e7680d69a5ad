/** The sign-in page shown whenever nobody is signed in; it says so when the server has password sign-in turned off. */
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { signInTypes } from '../../api/users';
import { useSession } from '../../stores/session';
import { ErrorAlert } from '../../components/ErrorAlert';

export function SignInForm({ onSignedIn, initialEmail = '' }: { onSignedIn?: () => void; initialEmail?: string }) {
  const signIn = useSession((s) => s.signIn);
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    signIn(email.trim(), password)
      .then(() => onSignedIn?.())
      .catch((err: unknown) => {
        setError(err);
        setBusy(false);
      });
  };
  return (
    <form onSubmit={submit} aria-label="Sign in">
      <Stack>
        <ErrorAlert error={error} action="sign in" />
        <TextInput label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} data-autofocus />
        <PasswordInput label="Password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
        <Button type="submit" loading={busy}>
          Sign in
        </Button>
      </Stack>
    </form>
  );
}

/** False once the server says local (password) sign-in is off; true until then, and if the question fails. */
function useLocalSignIn(): boolean {
  const [local, setLocal] = useState(true);
  useEffect(() => {
    const controller = new AbortController();
    signInTypes(controller.signal).then(
      (types) => setLocal(types.includes('local')),
      () => undefined,
    );
    return () => controller.abort();
  }, []);
  return local;
}

export function SignInPage() {
  const local = useLocalSignIn();
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w={400}>
        <Stack gap="xs" mb="md">
          <Title order={1} size="h2">
            Junction
          </Title>
          <Text c="dimmed" size="sm">
            Sign in to the administration console.
          </Text>
        </Stack>
        {local ? (
          <SignInForm />
        ) : (
          <Alert color="yellow" title="Sign-in with a password is turned off">
            This server does not accept console sign-in (api.authenticationTypes has no &quot;local&quot;). Scripts can still use the API with the types it allows.
          </Alert>
        )}
      </Paper>
    </Center>
  );
}
