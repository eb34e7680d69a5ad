/** The mediator's settings, as a form generated from its configDefs; saved with PUT /mediators/:urn/config. */
import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { PublicMediator } from '../../../../service/contracts/mediators';
import { ApiError } from '../../api/client';
import { saveMediatorConfig } from '../../api/mediators';
import { ErrorAlert } from '../../components/ErrorAlert';
import { fromDrafts, toDrafts } from './config-draft';
import type { Drafts, Problems } from './config-draft';
import { ConfigField } from './ConfigField';

/**
 * The server words a problem to follow its field's path ("is not a usable map key…", "must be a number"); next to
 * the field itself it reads better as a sentence.
 */
function asSentence(message: string): string {
  const text = /^(is|has|repeats)\b/.test(message) ? `This ${message}` : message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

export function ConfigForm({ mediator, onSaved }: { mediator: PublicMediator; onSaved: (mediator: PublicMediator) => void }) {
  const [drafts, setDrafts] = useState<Drafts>(() => toDrafts(mediator.configDefs, mediator.config));
  const [formProblems, setFormProblems] = useState<Problems>({});
  const [serverErrors, setServerErrors] = useState<Problems>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [dirty, setDirty] = useState(false);
  const [saved, setSaved] = useState(false);
  const [attempted, setAttempted] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const [focusInvalid, setFocusInvalid] = useState(0);

  useEffect(() => {
    if (focusInvalid === 0) return;
    // Mantine marks invalid inputs with aria-invalid, except PasswordInput, which only sets data-invalid.
    formRef.current?.querySelector<HTMLElement>(':is(input, textarea):is([aria-invalid="true"], [data-invalid="true"])')?.focus();
  }, [focusInvalid]);

  const change = (param: string, value: Drafts[string]) => {
    const next = { ...drafts, [param]: value };
    setDrafts(next);
    setDirty(true);
    setSaved(false);
    // Once a save was refused, the form's own problems follow the edits so fixed fields lose their message.
    if (attempted) setFormProblems(fromDrafts(mediator.configDefs, next).problems);
  };

  const reset = () => {
    setDrafts(toDrafts(mediator.configDefs, mediator.config));
    setFormProblems({});
    setServerErrors({});
    setError(null);
    setDirty(false);
    setAttempted(false);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAttempted(true);
    setServerErrors({});
    setSaved(false);
    const { config, problems } = fromDrafts(mediator.configDefs, drafts);
    setFormProblems(problems);
    if (Object.keys(problems).length > 0) {
      setError(new Error('Some settings need fixing before they can be saved; each is marked below.'));
      setFocusInvalid((n) => n + 1);
      return;
    }
    setBusy(true);
    setError(null);
    saveMediatorConfig(mediator.urn, config)
      .then((updated) => {
        setDrafts(toDrafts(updated.configDefs, updated.config));
        setDirty(false);
        setSaved(true);
        setAttempted(false);
        onSaved(updated);
      })
      .catch((err: unknown) => {
        setError(err);
        if (err instanceof ApiError) {
          setServerErrors(Object.fromEntries(Object.entries(err.fieldErrors()).map(([path, message]) => [path, asSentence(message)])));
          setFocusInvalid((n) => n + 1);
        }
      })
      .finally(() => setBusy(false));
  };

  if (mediator.configDefs.length === 0) return <Text>This mediator has no settings to change.</Text>;
  const errors = { ...serverErrors, ...formProblems };
  return (
    <form ref={formRef} onSubmit={submit} aria-label="Mediator settings" noValidate>
      <Stack maw={760}>
        <ErrorAlert error={error} action="save the settings" onClose={() => setError(null)} />
        {saved ? (
          <Alert color="teal" title="Saved" role="status" withCloseButton closeButtonLabel="Dismiss" onClose={() => setSaved(false)}>
            The settings were saved. The mediator receives them with its next heartbeat.
          </Alert>
        ) : null}
        {mediator.configDefs.map((def) => (
          <ConfigField key={def.param} def={def} draft={drafts[def.param] ?? null} onChange={(value) => change(def.param, value)} path={def.param} errors={errors} />
        ))}
        <Group>
          <Button type="submit" loading={busy}>
            Save settings
          </Button>
          <Button variant="default" onClick={reset} disabled={!dirty || busy}>
            Undo changes
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
