/**
 * Restoring a channel kept as deleted: it comes back enabled or disabled, under its own name or, when a live channel
 * has taken that name since, under a new one. The service's refusal is shown under the name it concerns.
 */
import type { FormEvent } from 'react';
import { Stack, Switch, Text, TextInput } from '@mantine/core';
import type { Channel } from '../../../../service/contracts/channels';
import { FormButtons } from '../../components/FormButtons';
import { SaveProblems } from '../../components/SaveProblems';
import { useFormState } from '../../components/form-errors';
import type { RestoreChoice } from '../../stores/channels';

export interface RestoreChannelFormProps {
  channel: Channel;
  onRestore: (choice: RestoreChoice) => Promise<unknown>;
  onDone: () => void;
}

export function RestoreChannelForm({ channel, onRestore, onDone }: RestoreChannelFormProps) {
  const { values, set, text, fieldError, server, form, busy, check, saving } = useFormState(() => ({ name: channel.name, enabled: true }), ['name']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const name = values.name.trim();
    if (!check(name === '' ? { name: 'Enter a name' } : {})) return;
    const choice: RestoreChoice = { status: values.enabled ? 'enabled' : 'disabled', ...(name === channel.name ? {} : { name }) };
    saving(() => onRestore(choice), onDone);
  };
  return (
    <form onSubmit={submit} aria-label={`Restore channel ${channel.name}`} noValidate ref={form}>
      <Stack>
        <Text size="sm">
          The channel comes back with the settings it had when it was deleted, and its transactions stay linked to it. If another channel has taken its
          name since, give it a new one here.
        </Text>
        <SaveProblems server={server} action="restore the channel" title="The channel was not restored" />
        <TextInput label="Name" required value={values.name} onChange={text('name')} error={fieldError('name')} data-autofocus autoComplete="off" />
        <Switch
          label="Enabled: route matching requests through it at once"
          description="Leave off to restore it disabled and check its settings first"
          checked={values.enabled}
          onChange={(e) => set('enabled', e.currentTarget.checked)}
        />
        <FormButtons submitLabel="Restore channel" busy={busy} onCancel={onDone} />
      </Stack>
    </form>
  );
}
