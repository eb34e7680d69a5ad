/**
 * People who use the console and the API. Admins list, add (or invite), edit and delete them, see pending
 * invitations and make set-password links; anyone else sees their own account here (the API lists users to admins
 * only).
 */
import { useEffect, useMemo, useState } from 'react';
import { Badge, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { PublicUser, UserCreateInput, UserUpdateInput } from '../../../../service/contracts/users';
import { PageHeader } from '../../components/PageHeader';
import { isAdmin, useSession } from '../../stores/session';
import { useUsers } from '../../stores/users';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { ColumnMeta } from '../../components/DataTable';
import { EditButton, ListPage, actionsColumn, useListPage } from '../../components/ListPage';
import { ADMIN_GROUP, UserForm } from './UserForm';
import { MyAccount } from './MyAccountPage';
import { PasswordLinkModal } from './PasswordLinkModal';

const column = createColumnHelper<PublicUser>();

function UserDeleteButton({ user, me, onClick }: { user: PublicUser; me: string | undefined; onClick: () => void }) {
  const reason = user.builtin ? 'The built-in administrator cannot be deleted' : user.email === me ? 'You cannot delete the account you are signed in with' : null;
  const button = (
    <Button size="xs" variant="subtle" color="red" aria-label={`Delete user ${user.email}`} onClick={onClick} disabled={reason !== null}>
      Delete
    </Button>
  );
  if (reason === null) return button;
  // A disabled button gets no pointer events; the wrapper carries the tooltip and the reason is also read out.
  return (
    <Tooltip label={reason}>
      <span tabIndex={0} aria-label={reason}>
        {button}
      </span>
    </Tooltip>
  );
}

/** An invitation not yet taken up, or a reset link pending, with when it expires. */
function LinkBadge({ user }: { user: PublicUser }) {
  if (!user.locked && user.tokenType === undefined) return null;
  const expired = user.expiry !== undefined && Date.parse(user.expiry) <= Date.now();
  const label = user.locked ? (expired ? 'invitation expired' : 'invited') : 'reset pending';
  const until = user.expiry === undefined ? 'no link pending: make one with Link' : `${expired ? 'expired' : 'link valid until'} ${new Date(user.expiry).toLocaleString()}`;
  return (
    <Tooltip label={until}>
      <Badge size="xs" color={expired ? 'red' : 'yellow'} variant="light" aria-label={`${label}, ${until}`}>
        {label}
      </Badge>
    </Tooltip>
  );
}

function AdminUsers() {
  const me = useSession((s) => s.user?.email);
  const { items: users, status, error, load, create, update, remove } = useUsers();
  const { editing, setEditing, closeForm, deleting, setDeleting } = useListPage<PublicUser>();
  const [linking, setLinking] = useState<PublicUser | null>(null);

  useEffect(() => {
    void load();
  }, [load]);

  const columns = useMemo(
    () =>
      [
        column.accessor('email', {
          header: 'Email',
          meta: { width: '28%' } satisfies ColumnMeta,
          cell: (c) => (
            <Group gap={6}>
              <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                {c.getValue()}
              </Text>
              {c.row.original.builtin && (
                <Badge size="xs" color="gray">
                  built-in
                </Badge>
              )}
              {c.row.original.email === me && (
                <Badge size="xs" variant="light">
                  you
                </Badge>
              )}
              <LinkBadge user={c.row.original} />
            </Group>
          ),
        }),
        column.accessor((u) => `${u.firstname} ${u.surname}`, { id: 'name', header: 'Name', meta: { width: '18%' } satisfies ColumnMeta }),
        column.accessor((u) => u.groups.join(' '), {
          id: 'groups',
          header: 'Groups',
          enableSorting: false,
          cell: (c) => (
            <Group gap={4}>
              {c.row.original.groups.map((g) => (
                <Badge key={g} variant={g === ADMIN_GROUP ? 'filled' : 'outline'} color={g === ADMIN_GROUP ? 'orange' : undefined} tt="none">
                  {g}
                </Badge>
              ))}
            </Group>
          ),
        }),
        column.display({
          id: 'reports',
          header: 'Reports',
          meta: { width: 150 } satisfies ColumnMeta,
          cell: (c) => {
            const u = c.row.original;
            const names = [u.dailyReport && 'Daily', u.weeklyReport && 'Weekly'].filter((x): x is string => typeof x === 'string');
            return names.length === 0 ? (
              <Text size="sm" c="dimmed">
                None
              </Text>
            ) : (
              <Group gap={4}>
                {names.map((n) => (
                  <Badge key={n} variant="light">
                    {n}
                  </Badge>
                ))}
              </Group>
            );
          },
        }),
        actionsColumn<PublicUser>(190, (user) => (
          <>
            <EditButton name={`user ${user.email}`} onClick={() => setEditing({ mode: 'edit', item: user })} />
            <Button size="xs" variant="subtle" aria-label={`Make a set-password link for ${user.email}`} onClick={() => setLinking(user)}>
              Link
            </Button>
            <UserDeleteButton user={user} me={me} onClick={() => setDeleting(user)} />
          </>
        )),
      ] as ColumnDef<PublicUser, unknown>[],
    [me, setEditing, setDeleting],
  );

  const groups = [...new Set([ADMIN_GROUP, ...users.flatMap((u) => u.groups)])].sort((a, b) => a.localeCompare(b));
  const save = (user: PublicUser | null, input: UserCreateInput | UserUpdateInput) =>
    user === null ? create(input as UserCreateInput) : update(user.email, input);

  return (
    <ListPage
      title="Users"
      plural="users"
      actions={
        <>
          <Button variant="default" component={Link} to="/account">
            My account
          </Button>
          <Button onClick={() => setEditing({ mode: 'new' })}>Add user</Button>
        </>
      }
      intro="People who sign in to this console or use the API. Their groups decide which channels' transactions they may see and re-run."
      items={users}
      status={status}
      error={error}
      searchPlaceholder="Email, name or group"
      noMatch="No user matches the search."
      rowId={(u) => u._id}
      columns={columns}
      editing={editing}
      closeForm={closeForm}
      formTitle={(user) => (user === null ? 'Add user' : `Edit user ${user.email}`)}
      form={(user) => (
        <UserForm
          user={user}
          me={me}
          groupSuggestions={groups}
          save={save}
          onSaved={(saved) => {
            closeForm();
            // An invited user needs their link: make it now, while the admin is here to pass it on.
            if (user === null && saved.locked) setLinking(saved);
          }}
          onCancel={closeForm}
        />
      )}
    >
      <PasswordLinkModal user={linking} onIssued={() => void load()} onClose={() => setLinking(null)} />
      <ConfirmDialog
        opened={deleting !== null}
        title={`Delete user ${deleting?.email ?? ''}?`}
        confirmLabel="Delete user"
        action="delete the user"
        onConfirm={() => (deleting === null ? Promise.resolve() : remove(deleting.email))}
        onClose={() => setDeleting(null)}
      >
        {`${deleting?.firstname ?? ''} ${deleting?.surname ?? ''} can no longer sign in, and any session they have open ends now. This cannot be undone.`}
      </ConfirmDialog>
    </ListPage>
  );
}

export function UsersPage() {
  const admin = isAdmin(useSession((s) => s.user));
  if (admin) return <AdminUsers />;
  return (
    <Stack>
      <PageHeader title="My account" />
      <Text size="sm" c="dimmed">
        Only administrators can see and change other people&apos;s accounts. You can change your own details and password here.
      </Text>
      <MyAccount />
    </Stack>
  );
}
