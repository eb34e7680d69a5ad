/**
 * Settings (admins, issue 35): email, the SMS gateway, the console's address in links and scheduled backups, each
 * saved here over the configuration file's value and applied at once, without a restart. Every field says where its
 * value comes from; a value saved here can be returned to the file's. Email and SMS have a Test button that sends one
 * message with the form's values before they are saved, and shows what the server answered.
 */
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Badge, Button, Group, NativeSelect, PasswordInput, Stack, Switch, Text, TextInput } from '@mantine/core';
import type { ClinicSetting, ClinicSettingKey, ClinicSettingsAnswer, ClinicSettingsTestAnswer } from '../../../../service/contracts/settings';
import { getSettings, saveSettings, testSettings } from '../../api/settings';
import { ApiError } from '../../api/client';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Section } from '../../components/Section';
import { adminOnly } from '../../components/AdminOnly';
import { SECTIONS, byKey, changesOf, draftOf, draftProblems, sourceText } from './settings-form';
import type { Draft, SettingField, SettingsSectionSpec } from './settings-form';

/** The server's problems by setting key (`body.email.smtp.port`, or `body.settings.email.smtp.port` for a test). */
function serverProblems(error: unknown): { byKey: Partial<Record<string, string>>; general: unknown } {
  if (!(error instanceof ApiError)) return { byKey: {}, general: error };
  const found: Partial<Record<string, string>> = {};
  let unplaced = 0;
  for (const [path, message] of Object.entries(error.fieldErrors())) {
    const key = path.replace(/^settings\./, '');
    if (key === '' || key === 'settings') unplaced += 1;
    else found[key] ??= message.charAt(0).toUpperCase() + message.slice(1);
  }
  return { byKey: found, general: Object.keys(found).length > 0 && unplaced === 0 ? null : error };
}

function SourceBadge({ setting }: { setting: ClinicSetting | undefined }) {
  if (setting === undefined) return null;
  return (
    <Badge variant="light" color={setting.source === 'console' ? 'blue' : 'gray'} tt="none" size="sm">
      {sourceText(setting.source)}
    </Badge>
  );
}

function FieldInput({ field, value, error, setting, onChange }: { field: SettingField; value: string | boolean; error: string | undefined; setting: ClinicSetting | undefined; onChange: (value: string | boolean) => void }) {
  const id = `setting-${field.key.replace(/\./g, '-')}`;
  if (field.kind === 'switch') {
    return <Switch id={id} label={field.label} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} error={error} />;
  }
  if (field.kind === 'select') {
    return <NativeSelect id={id} label={field.label} data={field.options ?? []} value={String(value)} onChange={(e) => onChange(e.currentTarget.value)} error={error} />;
  }
  if (field.kind === 'secret') {
    const kept = setting?.set === true;
    return (
      <PasswordInput
        id={id}
        label={field.label}
        description={[field.description, kept ? 'One is saved: leave blank to keep it' : 'None is set'].filter(Boolean).join('. ')}
        value={String(value)}
        autoComplete="new-password"
        onChange={(e) => onChange(e.currentTarget.value)}
        error={error}
      />
    );
  }
  const fileValue = setting?.source === 'console' && setting.fileValue !== undefined ? `The file's value: ${setting.fileValue === '' ? '(empty)' : String(setting.fileValue)}` : undefined;
  return (
    <TextInput
      id={id}
      label={field.label}
      description={[field.description, fileValue].filter(Boolean).join('. ') || undefined}
      placeholder={field.placeholder}
      inputMode={field.kind === 'number' ? 'numeric' : undefined}
      value={String(value)}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
    />
  );
}

function TestForm({ method, draft, section, settings }: { method: 'email' | 'sms'; draft: Draft; section: SettingsSectionSpec; settings: ReadonlyMap<ClinicSettingKey, ClinicSetting> }) {
  const [to, setTo] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ClinicSettingsTestAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [missing, setMissing] = useState<string | null>(null);
  const send = () => {
    if (to.trim() === '') {
      setMissing(method === 'email' ? 'Enter the email address the test goes to' : 'Enter the mobile number the test goes to');
      return;
    }
    setMissing(null);
    setBusy(true);
    setResult(null);
    setError(null);
    testSettings(method, to.trim(), changesOf(section, draft, settings)).then(
      (answer) => {
        setBusy(false);
        setResult(answer);
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const server = serverProblems(error);
  const label = method === 'email' ? 'Test email address' : 'Test mobile number';
  return (
    <Stack gap="xs" mt="sm">
      <Group align="flex-end">
        <TextInput
          label={label}
          description={method === 'email' ? 'Sends one email with the values above, before they are saved' : 'Sends one SMS with the values above, before they are saved; digits with an optional leading +'}
          type={method === 'email' ? 'email' : 'tel'}
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
          error={missing ?? server.byKey.to}
          w={380}
        />
        <Button variant="light" loading={busy} onClick={send}>
          {method === 'email' ? 'Send test email' : 'Send test SMS'}
        </Button>
      </Group>
      <div role="status" aria-live="polite">
        {result !== null && (
          <Alert color="teal" title="Test sent">
            Sent to {result.to}. {method === 'email' ? 'The mail server answered' : 'The gateway answered'}: {result.response === '' ? 'accepted' : result.response}
          </Alert>
        )}
      </div>
      {server.general !== null && error instanceof ApiError && error.code === 'SETTINGS_TEST_FAILED' ? (
        <Alert color="red" title="Test not sent" role="alert">
          {error.message}
        </Alert>
      ) : (
        <ErrorAlert error={Object.keys(server.byKey).some((k) => k !== 'to') ? error : server.general} action="send the test" />
      )}
    </Stack>
  );
}

function SettingsSection({ section, answer, onSaved }: { section: SettingsSectionSpec; answer: ClinicSettingsAnswer; onSaved: (answer: ClinicSettingsAnswer) => void }) {
  const settings = byKey(answer.settings);
  const [draft, setDraft] = useState<Draft>(() => draftOf(section, settings));
  const [local, setLocal] = useState<Partial<Record<string, string>>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);

  const apply = (promise: Promise<ClinicSettingsAnswer>, done: string) => {
    setBusy(true);
    setError(null);
    setNote(null);
    promise.then(
      (next) => {
        setBusy(false);
        setDraft(draftOf(section, byKey(next.settings)));
        setNote(done);
        onSaved(next);
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems = draftProblems(section, draft);
    setLocal(problems);
    setNote(null);
    if (Object.keys(problems).length > 0) return;
    const changes = changesOf(section, draft, settings);
    if (Object.keys(changes).length === 0) {
      setNote('Nothing changed.');
      return;
    }
    apply(saveSettings(changes), 'Saved. Junction uses these values from now on.');
  };

  const server = serverProblems(error);
  const saved = section.fields.filter((f) => settings.get(f.key)?.source === 'console');
  return (
    <Section title={section.title}>
      <form onSubmit={submit} aria-label={section.title} noValidate>
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            {section.intro}
          </Text>
          {section.fields.map((field) => (
            <Group key={field.key} align="flex-start" wrap="nowrap" gap="xs">
              <div style={{ flex: 1, maxWidth: 520 }}>
                <FieldInput
                  field={field}
                  value={draft[field.key] ?? ''}
                  setting={settings.get(field.key)}
                  error={local[field.key] ?? server.byKey[field.key]}
                  onChange={(value) => {
                    setDraft((d) => ({ ...d, [field.key]: value }));
                    setLocal((l) => ({ ...l, [field.key]: undefined }));
                  }}
                />
              </div>
              <div style={{ paddingTop: field.kind === 'switch' ? 0 : 26 }}>
                <SourceBadge setting={settings.get(field.key)} />
              </div>
            </Group>
          ))}
          <ErrorAlert error={server.general} action={`save the ${section.title.toLowerCase()} settings`} />
          <div role="status" aria-live="polite">
            {note !== null && <Text size="sm">{note}</Text>}
          </div>
          <Group>
            <Button type="submit" loading={busy}>
              {section.save}
            </Button>
            {saved.length > 0 && (
              <Button variant="default" disabled={busy} onClick={() => apply(saveSettings(Object.fromEntries(saved.map((f) => [f.key, null]))), "Back to the configuration file's values.")}>
                Use the file&apos;s values
              </Button>
            )}
          </Group>
        </Stack>
      </form>
      {section.test !== undefined && <TestForm method={section.test} draft={draft} section={section} settings={settings} />}
    </Section>
  );
}

function Readiness({ answer }: { answer: ClinicSettingsAnswer }) {
  const missing = [answer.email.configured ? null : `Email: ${answer.email.problem ?? 'not set up'}`, answer.sms.configured ? null : `SMS: ${answer.sms.problem ?? 'not set up'}`].filter((x) => x !== null);
  if (missing.length === 0) return null;
  return (
    <Alert color="yellow" title="Not every way of sending is set up">
      {missing.map((line) => (
        <Text size="sm" key={line}>
          {line}
        </Text>
      ))}
    </Alert>
  );
}

function Settings() {
  const [answer, setAnswer] = useState<ClinicSettingsAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const abort = new AbortController();
    getSettings(abort.signal).then(setAnswer, (err: unknown) => {
      if (!abort.signal.aborted) setError(err);
    });
    return () => abort.abort();
  }, []);
  return (
    <Stack>
      <PageHeader title="Settings" />
      <Text size="sm" c="dimmed">
        A value saved here is used instead of the configuration file&apos;s, at once and without a restart, until it is returned to the file&apos;s value.
      </Text>
      <ErrorAlert error={error} action="load the settings" />
      {answer !== null && (
        <>
          <Readiness answer={answer} />
          {SECTIONS.map((section) => (
            <SettingsSection key={section.id} section={section} answer={answer} onSaved={setAnswer} />
          ))}
        </>
      )}
    </Stack>
  );
}

export const SettingsPage = adminOnly('Settings', 'Only administrators can change the settings.', Settings);
