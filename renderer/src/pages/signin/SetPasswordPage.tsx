/**
 * The page a set-password link opens (`#/set-password/<token>`, OpenHIM's route; its `#!/` form works too): an invited
 * user chooses their password (and may correct their names), or a user who asked for a reset chooses a new one. It
 * needs no session, so it is shown before the sign-in gate. Setting the password signs the user in (the service sets
 * the session cookie when local sign-in is on), so the console opens at once; otherwise the page leads to sign-in.
 */
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Button, Center, Loader, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import type { SessionAnswer, TokenUserAnswer } from '../../../../service/contracts/users';
import { api, ApiError } from '../../api/client';
import { getTokenUser, setPasswordByToken } from '../../api/users';
import { usePageTitle } from '../../components/page-title';
import { ErrorAlert } from '../../components/ErrorAlert';
import { NewPasswordFields } from '../../components/PasswordPairFields';
import { passwordProblems } from '../../data/password-rules';

const LINK = /^#!?\/set-password\/([^/?#]+)$/;

/** The token of a set-password link in the address, or null when the address is not one. */
export function setPasswordToken(hash: string): string | null {
  const match = LINK.exec(hash);
  return match?.[1] === undefined ? null : decodeURIComponent(match[1]);
}

/** What the link itself says when it cannot be used. */
function linkProblem(err: unknown): string | null {
  if (!(err instanceof ApiError)) return null;
  if (err.status === 404) return 'This link is not valid: it may have been used already, or copied only in part. Ask an administrator for a new one.';
  if (err.status === 410) return 'This link has expired. Ask an administrator for a new one.';
  return null;
}

/** Leaves the link page for the console (signed in) or the sign-in page; Back does not return to the spent link. */
function toConsole(): void {
  window.location.replace(`${window.location.pathname}#/`);
  window.location.reload();
}

/** Whether the answer that set the password also signed this browser in. */
async function signedIn(): Promise<boolean> {
  try {
    await api.request<SessionAnswer>('/me', { noReauth: true });
    return true;
  } catch {
    return false;
  }
}

export function SetPasswordPage({ token }: { token: string }) {
  const [user, setUser] = useState<TokenUserAnswer | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [firstname, setFirstname] = useState('');
  const [surname, setSurname] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [done, setDone] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    getTokenUser(token, controller.signal).then(
      (found) => {
        setUser(found);
        setFirstname(found.firstname);
        setSurname(found.surname);
      },
      (err: unknown) => {
        if (!controller.signal.aborted) setLoadError(err);
      },
    );
    return () => controller.abort();
  }, [token]);

  const invited = user?.tokenType === 'newUser';
  usePageTitle(invited ? 'Welcome' : 'Choose a new password');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (user === null) return;
    const found = passwordProblems(password, confirm, user.email);
    if (invited && firstname.trim() === '') found.firstname = 'Enter your first name';
    if (invited && surname.trim() === '') found.surname = 'Enter your surname';
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setSaveError(null);
    setPasswordByToken(token, { password, ...(invited ? { firstname: firstname.trim(), surname: surname.trim() } : {}) }).then(
      async () => {
        if (await signedIn()) toConsole();
        else setDone(true);
      },
      (err: unknown) => {
        setSaveError(err);
        setBusy(false);
      },
    );
  };

  const problem = linkProblem(loadError) ?? linkProblem(saveError);
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w={460}>
        <Stack gap="xs" mb="md">
          <Title order={1} size="h2">
            {invited ? 'Welcome to Junction' : 'Choose a new password'}
          </Title>
          {user !== null && !done && (
            <Text size="sm">
              {invited ? `An account was made for ${user.email}. Choose a password to start using it.` : `Choose a new password for ${user.email}.`}
            </Text>
          )}
        </Stack>
        {problem !== null ? (
          <Stack>
            <Alert color="red" title="The link cannot be used">
              {problem}
            </Alert>
            <Button variant="default" onClick={toConsole}>
              Go to sign-in
            </Button>
          </Stack>
        ) : done ? (
          <Stack>
            <Alert color="green" title="Your password is set">
              You can now sign in with {user?.email} and your new password.
            </Alert>
            <Button onClick={toConsole}>Go to sign-in</Button>
          </Stack>
        ) : user === null ? (
          loadError === null ? (
            <Center>
              <Loader aria-label="Loading" />
            </Center>
          ) : (
            <ErrorAlert error={loadError} action="open the link" />
          )
        ) : (
          <form onSubmit={submit} aria-label="Set password" noValidate>
            <Stack>
              <ErrorAlert error={saveError} action="set the password" />
              {invited && (
                <SimpleGrid cols={2}>
                  <TextInput label="First name" required value={firstname} onChange={(e) => setFirstname(e.currentTarget.value)} error={problems.firstname} autoComplete="given-name" />
                  <TextInput label="Surname" required value={surname} onChange={(e) => setSurname(e.currentTarget.value)} error={problems.surname} autoComplete="family-name" />
                </SimpleGrid>
              )}
              <NewPasswordFields
                pair={{ password, confirm, setPassword, setConfirm }}
                description="At least 8 characters; long passphrases are best."
                errors={{ password: problems.password, confirm: problems.confirm }}
                cols={1}
              />
              <Button type="submit" loading={busy}>
                Set password
              </Button>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}
