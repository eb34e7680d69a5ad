/** The sign-in page shown whenever nobody is signed in; it says so when the server has password sign-in turned off. */
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Anchor, Button, Center, Divider, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { signInTypes } from '../../api/users';
import { openIdInfo, startOpenId } from '../../api/openid';
import { useSession } from '../../stores/session';
import { ErrorAlert } from '../../components/ErrorAlert';
import { usePageTitle } from '../../components/page-title';
import { SIGN_IN_HELP } from '../../data/help';

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

/**
 * How this server lets people sign in: `local` is false once the server says password sign-in is off (true until
 * then, and if the question fails); `openid` is the OpenID button's provider name when that sign-in is on.
 */
function useSignInTypes(): { local: boolean; openid: string | null } {
  const [local, setLocal] = useState(true);
  const [openid, setOpenid] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    signInTypes(controller.signal).then(
      (types) => {
        setLocal(types.includes('local'));
        if (types.includes('openid')) {
          openIdInfo(controller.signal).then(
            (info) => setOpenid(info.displayName),
            () => undefined,
          );
        }
      },
      () => undefined,
    );
    return () => controller.abort();
  }, []);
  return { local, openid };
}

/** Sends the browser to the OpenID provider; it comes back to this console with a code (see App). */
function OpenIdButton({ name }: { name: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const go = () => {
    setBusy(true);
    setError(null);
    startOpenId().then(
      ({ url }) => window.location.assign(url),
      (err: unknown) => {
        setError(err);
        setBusy(false);
      },
    );
  };
  return (
    <Stack>
      <ErrorAlert error={error} action={`sign in with ${name}`} />
      <Button variant="default" onClick={go} loading={busy}>
        Sign in with {name}
      </Button>
    </Stack>
  );
}

export function SignInPage() {
  usePageTitle('Sign in');
  const { local, openid } = useSignInTypes();
  const openIdError = useSession((s) => s.openIdError);
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
        <Stack>
          <ErrorAlert error={openIdError} action="sign in with the OpenID provider" />
          {openid !== null && <OpenIdButton name={openid} />}
          {openid !== null && local && <Divider label="or with a password" labelPosition="center" />}
          {local ? (
            <SignInForm />
          ) : openid === null ? (
            <Alert color="yellow" title="Sign-in with a password is turned off">
              This server does not accept console sign-in (api.authenticationTypes has no &quot;local&quot;). Scripts can still use the API with the types it allows.
            </Alert>
          ) : null}
          {/* The manual is readable without signing in: who cannot sign in needs it most (data/help.ts). */}
          <Text size="sm">
            Trouble signing in? See the{' '}
            <Anchor href={SIGN_IN_HELP} target="_blank" rel="noopener noreferrer" underline="always">
              manual
            </Anchor>
            .
          </Text>
        </Stack>
      </Paper>
    </Center>
  );
}
