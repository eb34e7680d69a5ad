/** The two small role forms: a new role (a name and what it is granted on) and a new name for an existing role. */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, MultiSelect, Stack, TextInput } from '@mantine/core';
import { FormButtons } from '../../components/FormButtons';
import { ErrorAlert } from '../../components/ErrorAlert';
import { splitErrors, useFocusInvalid } from '../../components/form-errors';
import type { Grants } from '../../stores/roles';

const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.@-]{0,63}$/;

function nameProblem(name: string, taken: readonly string[]): string | undefined {
  if (name === '') return 'Enter a role name';
  if (!ROLE_NAME.test(name)) return 'Start with a letter or digit; then use letters, digits, spaces or _ . @ - (at most 64 characters)';
  if (taken.includes(name)) return `A role named ${name} already exists`;
  return undefined;
}

export interface Option {
  value: string;
  label: string;
}

export interface AddRoleFormProps {
  channels: Option[];
  clients: Option[];
  existing: string[];
  onCreate: (name: string, grants: Grants) => Promise<void>;
  onDone: () => void;
}

export function AddRoleForm({ channels, clients, existing, onCreate, onDone }: AddRoleFormProps) {
  const [name, setName] = useState('');
  const [grants, setGrants] = useState<Grants>({ channels: [], clients: [] });
  const [local, setLocal] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const server = splitErrors(error, ['name', 'channels', 'clients']);
  const form = useFocusInvalid(error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    const nameError = nameProblem(name.trim(), existing);
    if (nameError !== undefined) problems.name = nameError;
    if (grants.channels.length + grants.clients.length === 0) problems.grants = 'Choose at least one channel or client: a role exists only while something uses it.';
    setLocal(problems);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    setError(null);
    onCreate(name.trim(), grants).then(onDone, (err: unknown) => {
      setBusy(false);
      setError(err);
    });
  };
  return (
    <form onSubmit={submit} aria-label="New role" noValidate ref={form}>
      <Stack>
        <ErrorAlert error={server.general} action="add the role" />
        <TextInput
          label="Role name"
          description="Letters, digits, spaces and _ . @ -; it must not be a client ID"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={local.name ?? server.fields.name}
          data-autofocus
          autoComplete="off"
        />
        <MultiSelect
          label="Channels"
          description="Channels that admit clients holding this role"
          data={channels}
          value={grants.channels}
          onChange={(value) => setGrants((g) => ({ ...g, channels: value }))}
          error={server.fields.channels}
          searchable
          nothingFoundMessage="No channel with that name"
          comboboxProps={{ withinPortal: true }}
        />
        <MultiSelect
          label="Clients"
          description="Clients that hold this role"
          data={clients}
          value={grants.clients}
          onChange={(value) => setGrants((g) => ({ ...g, clients: value }))}
          error={server.fields.clients}
          searchable
          nothingFoundMessage="No client with that ID"
          comboboxProps={{ withinPortal: true }}
        />
        {local.grants !== undefined && (
          <Alert color="red" role="alert">
            {local.grants}
          </Alert>
        )}
        <FormButtons submitLabel="Add role" busy={busy} onCancel={onDone} />
      </Stack>
    </form>
  );
}

export interface RenameRoleFormProps {
  current: string;
  existing: string[];
  onRename: (to: string) => Promise<void>;
  onDone: () => void;
}

export function RenameRoleForm({ current, existing, onRename, onDone }: RenameRoleFormProps) {
  const [name, setName] = useState(current);
  const [local, setLocal] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const server = splitErrors(error, ['name']);
  const form = useFocusInvalid(error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const to = name.trim();
    if (to === current) {
      onDone();
      return;
    }
    const problem = nameProblem(to, existing);
    setLocal(problem);
    if (problem !== undefined) return;
    setBusy(true);
    setError(null);
    onRename(to).then(onDone, (err: unknown) => {
      setBusy(false);
      setError(err);
    });
  };
  return (
    <form onSubmit={submit} aria-label={`Rename role ${current}`} noValidate ref={form}>
      <Stack>
        <ErrorAlert error={server.general} action="rename the role" />
        <TextInput
          label="New name"
          description="Every channel and client with the role keeps it under the new name"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={local ?? server.fields.name}
          data-autofocus
          autoComplete="off"
        />
        <FormButtons submitLabel="Rename role" busy={busy} onCancel={onDone} />
      </Stack>
    </form>
  );
}
