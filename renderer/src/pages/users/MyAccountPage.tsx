/** The signed-in user's own account: name, SMS number, report e-mails, and a new password. Open to everyone. */
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Badge, Button, Group, Loader, Paper, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import type { PublicUser, UserUpdateInput } from '../../../../service/contracts/users';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { NewPasswordFields } from '../../components/PasswordPairFields';
import { getUser } from '../../api/users';
import { useSession } from '../../stores/session';
import { useUsers } from '../../stores/users';
import { focusFirstInvalid, splitErrors, useFocusInvalid } from '../../components/form-errors';
import { passwordProblems } from '../../data/password-rules';
import { REPORT_SCHEDULE } from './report-schedule';

const MSISDN = /^\+?[0-9]{6,15}$/;

function DetailsForm({ me, onSaved }: { me: PublicUser; onSaved: (user: PublicUser) => void }) {
  const update = useUsers((s) => s.update);
  const [firstname, setFirstname] = useState(me.firstname);
  const [surname, setSurname] = useState(me.surname);
  const [msisdn, setMsisdn] = useState(me.msisdn ?? '');
  const [dailyReport, setDailyReport] = useState(me.dailyReport);
  const [weeklyReport, setWeeklyReport] = useState(me.weeklyReport);
  const [local, setLocal] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const server = splitErrors(error, ['firstname', 'surname', 'msisdn']);
  const form = useFocusInvalid(error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    if (firstname.trim() === '') problems.firstname = 'Enter your first name';
    if (surname.trim() === '') problems.surname = 'Enter your surname';
    if (msisdn.trim() !== '' && !MSISDN.test(msisdn.trim())) problems.msisdn = 'Use the international number in digits, such as +27821234567';
    setLocal(problems);
    setDone(false);
    if (Object.keys(problems).length > 0) {
      focusFirstInvalid(form.current);
      return;
    }
    const changes: UserUpdateInput = {};
    if (firstname.trim() !== me.firstname) changes.firstname = firstname.trim();
    if (surname.trim() !== me.surname) changes.surname = surname.trim();
    if (msisdn.trim() !== (me.msisdn ?? '')) changes.msisdn = msisdn.trim() === '' ? null : msisdn.trim();
    if (dailyReport !== me.dailyReport) changes.dailyReport = dailyReport;
    if (weeklyReport !== me.weeklyReport) changes.weeklyReport = weeklyReport;
    if (Object.keys(changes).length === 0) {
      setDone(true);
      return;
    }
    setBusy(true);
    setError(null);
    update(me.email, changes).then(
      (saved) => {
        setBusy(false);
        setDone(true);
        onSaved(saved);
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };

  return (
    <form onSubmit={submit} aria-label="Your details" noValidate ref={form}>
      <Stack>
        <Title order={2} size="h4">
          Your details
        </Title>
        <ErrorAlert error={server.general} action="save your details" />
        <SimpleGrid cols={2}>
          <TextInput label="First name" required value={firstname} onChange={(e) => setFirstname(e.currentTarget.value)} error={local.firstname ?? server.fields.firstname} autoComplete="given-name" />
          <TextInput label="Surname" required value={surname} onChange={(e) => setSurname(e.currentTarget.value)} error={local.surname ?? server.fields.surname} autoComplete="family-name" />
        </SimpleGrid>
        <TextInput
          label="Mobile number (MSISDN)"
          description="For SMS alerts; international format in digits"
          value={msisdn}
          onChange={(e) => setMsisdn(e.currentTarget.value)}
          error={local.msisdn ?? server.fields.msisdn}
          autoComplete="tel"
          maw={360}
        />
        <Switch label="Daily report" description="An e-mail each morning with yesterday's transactions by status" checked={dailyReport} onChange={(e) => setDailyReport(e.currentTarget.checked)} />
        <Switch label="Weekly report" description="An e-mail each Monday morning covering the previous week" checked={weeklyReport} onChange={(e) => setWeeklyReport(e.currentTarget.checked)} />
        <Text size="xs" c="dimmed">
          {REPORT_SCHEDULE}
        </Text>
        <Group justify="space-between">
          <Text size="sm" c="teal" role="status">
            {done ? 'Your details are saved.' : ''}
          </Text>
          <Button type="submit" loading={busy}>
            Save details
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function PasswordForm({ me }: { me: PublicUser }) {
  const update = useUsers((s) => s.update);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [local, setLocal] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const server = splitErrors(error, ['password']);
  const form = useFocusInvalid(error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems = passwordProblems(password, confirm, me.email);
    setLocal(problems);
    setDone(false);
    if (Object.keys(problems).length > 0) {
      focusFirstInvalid(form.current);
      return;
    }
    setBusy(true);
    setError(null);
    update(me.email, { password }).then(
      () => {
        setBusy(false);
        setPassword('');
        setConfirm('');
        setDone(true);
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };

  return (
    <form onSubmit={submit} aria-label="Change your password" noValidate ref={form}>
      <Stack>
        <Title order={2} size="h4">
          Change your password
        </Title>
        <Text size="sm" c="dimmed">
          Your other sign-ins (other browsers, other computers) end when the password changes; this one stays signed in.
        </Text>
        <ErrorAlert error={server.general} action="change your password" />
        <NewPasswordFields
          pair={{ password, confirm, setPassword, setConfirm }}
          description="At least 8 characters; a long passphrase is best"
          errors={{ password: local.password ?? server.fields.password, confirm: local.confirm }}
        />
        <Group justify="space-between">
          <Text size="sm" c="teal" role="status">
            {done ? 'Your password is changed.' : ''}
          </Text>
          <Button type="submit" loading={busy}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The account forms, for the page of its own and for the Users page of someone who is not an admin. */
export function MyAccount() {
  const sessionUser = useSession((s) => s.user);
  const [me, setMe] = useState<PublicUser | null>(null);
  const [error, setError] = useState<unknown>(null);
  const email = sessionUser?.email;

  useEffect(() => {
    if (email === undefined) return;
    const abort = new AbortController();
    getUser(email, abort.signal).then(setMe, (err: unknown) => {
      if (!abort.signal.aborted) setError(err);
    });
    return () => abort.abort();
  }, [email]);

  if (error !== null) return <ErrorAlert error={error} action="load your account" />;
  if (me === null) return <Loader aria-label="Loading your account" />;
  return (
    <Stack maw={760}>
      <Group gap="xs">
        <Text>
          Signed in as <b>{me.email}</b>
        </Text>
        {me.groups.map((g) => (
          <Badge key={g} variant="outline" tt="none">
            {g}
          </Badge>
        ))}
      </Group>
      <Paper withBorder p="md">
        <DetailsForm me={me} onSaved={setMe} />
      </Paper>
      <Paper withBorder p="md">
        <PasswordForm me={me} />
      </Paper>
      {me.groups.length === 0 && <Alert color="gray">You are in no group yet, so no channel lets you see its transactions. Ask an administrator.</Alert>}
    </Stack>
  );
}

export function MyAccountPage() {
  return (
    <Stack>
      <PageHeader title="My account" />
      <MyAccount />
    </Stack>
  );
}
