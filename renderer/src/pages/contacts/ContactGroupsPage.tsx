/** Contact groups (admins): named lists of people a channel's alerts can notify at once, listed, added, edited and deleted. */
import { useEffect, useMemo } from 'react';
import { Button, Text } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import type { ContactGroup, ContactGroupCreateInput, ContactGroupUpdateInput } from '../../../../service/contracts/contact-groups';
import type { ColumnMeta } from '../../components/DataTable';
import { adminOnly } from '../../components/AdminOnly';
import { DeleteButton, EditButton, ListPage, actionsColumn, useListPage } from '../../components/ListPage';
import { useContactGroups } from '../../stores/contact-groups';
import { useUsers } from '../../stores/users';
import { ContactGroupForm } from './ContactGroupForm';
import { DeleteGroupDialog } from './DeleteGroupDialog';

const column = createColumnHelper<ContactGroup>();

const count = (n: number): string => (n === 1 ? '1 recipient' : `${n} recipients`);

function ContactGroups() {
  const { items: groups, status, error, load, create, update, remove } = useContactGroups();
  const users = useUsers((s) => s.items);
  const usersStatus = useUsers((s) => s.status);
  const loadUsers = useUsers((s) => s.load);
  const { editing, setEditing, closeForm, deleting, setDeleting } = useListPage<ContactGroup>();

  useEffect(() => {
    void load();
    void loadUsers();
  }, [load, loadUsers]);

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
        actionsColumn<ContactGroup>(140, (group) => (
          <>
            <EditButton name={`contact group ${group.group}`} onClick={() => setEditing({ mode: 'edit', item: group })} />
            <DeleteButton name={`contact group ${group.group}`} onClick={() => setDeleting(group)} />
          </>
        )),
      ] as ColumnDef<ContactGroup, unknown>[],
    [setEditing, setDeleting],
  );

  const save = (group: ContactGroup | null, input: ContactGroupCreateInput | ContactGroupUpdateInput) =>
    group === null ? create(input as ContactGroupCreateInput) : update(group._id, input);

  return (
    <ListPage
      title="Contact groups"
      plural="contact groups"
      actions={<Button onClick={() => setEditing({ mode: 'new' })}>Add contact group</Button>}
      intro="A contact group is a list of people told together, each by email or SMS. A channel's alerts (its Alerts tab) can notify groups as well as single users."
      items={groups}
      status={status}
      error={error}
      searchPlaceholder="Name or recipient"
      noMatch="No contact group matches the search."
      none="No contact groups yet. Add one to alert several people at once."
      rowId={(g) => g._id}
      columns={columns}
      editing={editing}
      closeForm={closeForm}
      formTitle={(group) => (group === null ? 'Add contact group' : `Edit contact group ${group.group}`)}
      formSize="xl"
      form={(group) => <ContactGroupForm group={group} users={usersStatus === 'error' ? null : users} save={save} onSaved={closeForm} onCancel={closeForm} />}
    >
      <DeleteGroupDialog group={deleting} onConfirm={(g) => remove(g._id)} onClose={() => setDeleting(null)} />
    </ListPage>
  );
}

export const ContactGroupsPage = adminOnly('Contact groups', 'Only administrators can view and change contact groups.', ContactGroups);
