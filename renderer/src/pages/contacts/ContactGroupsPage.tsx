/** Contact groups (admins): named lists of people a channel's alerts can notify at once, listed, added, edited and deleted. */
import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Group, Stack, Text, VisuallyHidden } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import type { ContactGroup, ContactGroupCreateInput, ContactGroupUpdateInput } from '../../../../service/contracts/contact-groups';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ListSearch } from '../../components/ListSearch';
import { FormModal } from '../../components/FormModal';
import type { Editing } from '../../components/FormModal';
import { DataTable } from '../../components/DataTable';
import type { ColumnMeta } from '../../components/DataTable';
import { isAdmin, useSession } from '../../stores/session';
import { useContactGroups } from '../../stores/contact-groups';
import { useUsers } from '../../stores/users';
import { ContactGroupForm } from './ContactGroupForm';
import { DeleteGroupDialog } from './DeleteGroupDialog';

const column = createColumnHelper<ContactGroup>();

const count = (n: number): string => (n === 1 ? '1 recipient' : `${n} recipients`);

export function ContactGroupsPage() {
  const admin = isAdmin(useSession((s) => s.user));
  const { groups, status, error, load, create, update, remove } = useContactGroups();
  const users = useUsers((s) => s.users);
  const usersStatus = useUsers((s) => s.status);
  const loadUsers = useUsers((s) => s.load);
  const [editing, setEditing] = useState<Editing<ContactGroup>>({ mode: 'closed' });
  const [deleting, setDeleting] = useState<ContactGroup | null>(null);
  const [search, setSearch] = useState('');

  useEffect(() => {
    if (!admin) return;
    void load();
    void loadUsers();
  }, [admin, load, loadUsers]);

  const columns = useMemo(
    () =>
      [
        column.accessor('group', {
          header: 'Name',
          meta: { width: '30%' } satisfies ColumnMeta,
          cell: (c) => (
            <Text size="sm" fw={600}>
              {c.getValue()}
            </Text>
          ),
        }),
        column.accessor((g) => g.users.length, { id: 'count', header: 'Recipients', meta: { width: 130 } satisfies ColumnMeta, cell: (c) => count(c.getValue()) }),
        column.accessor((g) => g.users.map((u) => `${u.user} (${u.method === 'sms' ? 'SMS' : 'email'})`).join(', '), {
          id: 'who',
          header: 'Who',
          enableSorting: false,
          cell: (c) => (
            <Text size="sm" c={c.getValue() === '' ? 'dimmed' : undefined}>
              {c.getValue() === '' ? 'Nobody yet' : c.getValue()}
            </Text>
          ),
        }),
        column.display({
          id: 'actions',
          header: () => <VisuallyHidden>Actions</VisuallyHidden>,
          meta: { width: 140 } satisfies ColumnMeta,
          cell: (c) => (
            <Group gap={4} wrap="nowrap">
              <Button size="xs" variant="default" aria-label={`Edit contact group ${c.row.original.group}`} onClick={() => setEditing({ mode: 'edit', item: c.row.original })}>
                Edit
              </Button>
              <Button size="xs" variant="subtle" color="red" aria-label={`Delete contact group ${c.row.original.group}`} onClick={() => setDeleting(c.row.original)}>
                Delete
              </Button>
            </Group>
          ),
        }),
      ] as ColumnDef<ContactGroup, unknown>[],
    [],
  );

  if (!admin) {
    return (
      <Stack>
        <PageHeader title="Contact groups" />
        <Alert color="gray">Only administrators can view and change contact groups.</Alert>
      </Stack>
    );
  }

  const save = (group: ContactGroup | null, input: ContactGroupCreateInput | ContactGroupUpdateInput) =>
    group === null ? create(input as ContactGroupCreateInput) : update(group._id, input);

  return (
    <Stack>
      <PageHeader title="Contact groups">
        <Button onClick={() => setEditing({ mode: 'new' })}>Add contact group</Button>
      </PageHeader>
      <Text size="sm" c="dimmed">
        A contact group is a list of people told together, each by email or SMS. A channel&apos;s alerts (its Alerts tab) can notify groups as well as single users.
      </Text>
      <ErrorAlert error={error} action="load the contact groups" />
      <ListSearch
        label="Search contact groups"
        placeholder="Name or recipient"
        value={search}
        onChange={setSearch}
        loading={status === 'loading'}
        loadingLabel="Loading contact groups"
      />
      <DataTable
        data={groups}
        columns={columns}
        label="Contact groups"
        getRowId={(g) => g._id}
        search={search}
        empty={status === 'loading' ? 'Loading…' : search !== '' ? 'No contact group matches the search.' : 'No contact groups yet. Add one to alert several people at once.'}
      />
      <FormModal
        opened={editing.mode !== 'closed'}
        onClose={() => setEditing({ mode: 'closed' })}
        title={editing.mode === 'edit' ? `Edit contact group ${editing.item.group}` : 'Add contact group'}
        size="xl"
      >
        {editing.mode !== 'closed' && (
          <ContactGroupForm
            key={editing.mode === 'edit' ? editing.item._id : 'new'}
            group={editing.mode === 'edit' ? editing.item : null}
            users={usersStatus === 'error' ? null : users}
            save={save}
            onSaved={() => setEditing({ mode: 'closed' })}
            onCancel={() => setEditing({ mode: 'closed' })}
          />
        )}
      </FormModal>
      <DeleteGroupDialog group={deleting} onConfirm={(g) => remove(g._id)} onClose={() => setDeleting(null)} />
    </Stack>
  );
}
