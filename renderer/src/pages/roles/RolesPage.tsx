/** Roles: which channels admit each role, and which clients hold it, edited as one grid. Admins only. */
import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Modal, Stack, Text } from '@mantine/core';
import type { Role } from '../../../../service/contracts/roles';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { adminOnly } from '../../components/AdminOnly';
import { grantsOf, useRoles } from '../../stores/roles';
import type { Grants } from '../../stores/roles';
import { ListSearch } from '../../components/ListSearch';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { RoleMatrix } from './RoleMatrix';
import type { MatrixColumn } from './RoleMatrix';
import { AddRoleForm, RenameRoleForm } from './RoleForms';

type Dialog = { kind: 'none' } | { kind: 'add' } | { kind: 'rename'; role: Role } | { kind: 'delete'; role: Role } | { kind: 'empty'; role: Role };

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

function Roles() {
  const { roles, channels, clients, status, error, load, saveGrants, create, rename, remove } = useRoles();
  const [drafts, setDrafts] = useState<Record<string, Grants>>({});
  const [filter, setFilter] = useState('');
  const [dialog, setDialog] = useState<Dialog>({ kind: 'none' });
  const [saving, setSaving] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<{ error: unknown; role: string } | null>(null);

  useEffect(() => {
    void load();
  }, [load]);

  const columns = useMemo<MatrixColumn[]>(() => {
    const needle = filter.trim().toLowerCase();
    const all: MatrixColumn[] = [
      ...channels.map((c) => ({ kind: 'channel' as const, id: c._id, label: c.name })),
      ...clients.map((c) => ({ kind: 'client' as const, id: c._id, label: c.clientID })),
    ];
    return needle === '' ? all : all.filter((c) => c.label.toLowerCase().includes(needle));
  }, [channels, clients, filter]);

  const grantsFor = (role: Role): Grants => drafts[role.name] ?? grantsOf(role);
  const isDirty = (role: Role): boolean => {
    const draft = drafts[role.name];
    if (draft === undefined) return false;
    const now = grantsOf(role);
    return !sameSet(draft.channels, now.channels) || !sameSet(draft.clients, now.clients);
  };
  const dirtyRoles = roles.filter(isDirty);

  const toggle = (role: Role, column: MatrixColumn, granted: boolean) => {
    setDrafts((all) => {
      const current = all[role.name] ?? grantsOf(role);
      const key = column.kind === 'channel' ? 'channels' : 'clients';
      const list = granted ? [...current[key], column.id] : current[key].filter((id) => id !== column.id);
      return { ...all, [role.name]: { ...current, [key]: list } };
    });
  };
  const discard = (role: Role) =>
    setDrafts(({ [role.name]: _gone, ...rest }) => {
      return rest;
    });

  const commit = async (role: Role): Promise<void> => {
    const draft = drafts[role.name];
    if (draft === undefined) return;
    setSaving(role.name);
    setSaveError(null);
    try {
      await saveGrants(role.name, draft);
      discard(role);
    } catch (err) {
      setSaveError({ error: err, role: role.name });
      throw err;
    } finally {
      setSaving(null);
    }
  };
  const save = (role: Role) => {
    const draft = grantsFor(role);
    // Both lists empty removes the role everywhere (SPEC Roles rule 4): ask first.
    if (draft.channels.length === 0 && draft.clients.length === 0) setDialog({ kind: 'empty', role });
    else commit(role).catch(() => undefined);
  };
  const saveAll = async () => {
    for (const role of dirtyRoles) {
      const draft = grantsFor(role);
      if (draft.channels.length === 0 && draft.clients.length === 0) continue;
      await commit(role);
    }
  };

  const channelOptions = channels.map((c) => ({ value: c._id, label: c.name }));
  const clientOptions = clients.map((c) => ({ value: c._id, label: c.clientID }));
  const names = roles.map((r) => r.name);
  const closeDialog = () => setDialog({ kind: 'none' });

  return (
    <Stack>
      <PageHeader title="Roles">
        {dirtyRoles.length > 1 && (
          <Button variant="light" onClick={() => void saveAll().catch(() => undefined)}>
            Save all changes ({dirtyRoles.length} roles)
          </Button>
        )}
        <Button onClick={() => setDialog({ kind: 'add' })}>Add role</Button>
      </PageHeader>
      <Text size="sm" c="dimmed">
        A role is a name given to clients. Tick a channel to let clients with the role use it; tick a client to give it the role. Changes to a row are kept
        until you press its Save button.
      </Text>
      <ErrorAlert error={error} action="load the roles" />
      {saveError !== null && <ErrorAlert error={saveError.error} action={`save role ${saveError.role}`} onClose={() => setSaveError(null)} />}
      <ListSearch
        label="Show channels and clients named"
        placeholder="Part of a channel name or client ID"
        value={filter}
        onChange={setFilter}
        loading={status === 'loading'}
        loadingLabel="Loading roles"
        align="flex-end"
      >
        <Text size="sm" c="dimmed">
          {roles.length} {roles.length === 1 ? 'role' : 'roles'} · {channels.length} channels · {clients.length} clients
        </Text>
      </ListSearch>
      {status === 'ready' && roles.length === 0 ? (
        <Alert color="gray" title="No roles yet">
          {channels.length + clients.length === 0
            ? 'Add channels or clients first: a role exists only while a channel or client uses it.'
            : 'Add a role to give several clients access to the same channels at once.'}
        </Alert>
      ) : status === 'ready' || roles.length > 0 ? (
        columns.length === 0 && filter !== '' ? (
          <Text c="dimmed">No channel or client matches “{filter}”.</Text>
        ) : (
          <RoleMatrix
            roles={roles}
            columns={columns}
            grantsFor={grantsFor}
            isDirty={isDirty}
            saving={saving}
            onToggle={toggle}
            onSave={save}
            onDiscard={discard}
            onRename={(role) => setDialog({ kind: 'rename', role })}
            onDelete={(role) => setDialog({ kind: 'delete', role })}
          />
        )
      ) : null}

      <Modal opened={dialog.kind === 'add'} onClose={closeDialog} title="Add role" size="lg">
        {dialog.kind === 'add' && <AddRoleForm channels={channelOptions} clients={clientOptions} existing={names} onCreate={create} onDone={closeDialog} />}
      </Modal>
      <Modal opened={dialog.kind === 'rename'} onClose={closeDialog} title={dialog.kind === 'rename' ? `Rename role ${dialog.role.name}` : ''}>
        {dialog.kind === 'rename' && (
          <RenameRoleForm
            current={dialog.role.name}
            existing={names.filter((n) => n !== dialog.role.name)}
            onRename={async (to) => {
              const from = dialog.role.name;
              await rename(from, to);
              discard(dialog.role);
            }}
            onDone={closeDialog}
          />
        )}
      </Modal>
      <ConfirmDialog
        opened={dialog.kind === 'delete' || dialog.kind === 'empty'}
        title={dialog.kind === 'delete' || dialog.kind === 'empty' ? `Delete role ${dialog.role.name}?` : ''}
        confirmLabel="Delete role"
        action="delete the role"
        onConfirm={async () => {
          if (dialog.kind !== 'delete' && dialog.kind !== 'empty') return;
          await remove(dialog.role.name);
          discard(dialog.role);
        }}
        onClose={closeDialog}
      >
        {dialog.kind === 'delete'
          ? `The role is taken off ${dialog.role.channels.length} channel(s) and ${dialog.role.clients.length} client(s). Clients that relied on it lose access to those channels.`
          : dialog.kind === 'empty'
            ? 'Nothing is ticked in this row any more, so saving it removes the role from every channel and client.'
            : ''}
      </ConfirmDialog>
    </Stack>
  );
}

export const RolesPage = adminOnly('Roles', 'Only administrators can view and change roles.', Roles);
