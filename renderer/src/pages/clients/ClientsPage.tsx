/** The systems allowed to send requests: list, add, edit, delete. Admins only (the API refuses everyone else). */
import { useEffect, useMemo, useState } from 'react';
import { Alert, Badge, Button, Code, CopyButton, Group, Stack, Text, VisuallyHidden } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import type { ClientCreateInput, ClientUpdateInput, PublicClient } from '../../../../service/contracts/clients';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { isAdmin, useSession } from '../../stores/session';
import { knownRoles, useClients } from '../../stores/clients';
import { listRoles } from '../../api/roles';
import { ClientForm, CredentialBadges } from './ClientForm';
import { ListSearch } from '../../components/ListSearch';
import { FormModal } from '../../components/FormModal';
import type { Editing } from '../../components/FormModal';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { ColumnMeta } from '../../components/DataTable';

const column = createColumnHelper<PublicClient>();

export function ClientsPage() {
  const admin = isAdmin(useSession((s) => s.user));
  const { clients, status, error, load, create, update, remove } = useClients();
  const [editing, setEditing] = useState<Editing<PublicClient>>({ mode: 'closed' });
  const [deleting, setDeleting] = useState<PublicClient | null>(null);
  const [search, setSearch] = useState('');
  const [shownToken, setShownToken] = useState<{ clientID: string; token: string } | null>(null);

  const [roleNames, setRoleNames] = useState<string[]>([]);

  useEffect(() => {
    if (!admin) return;
    void load();
    // Roles granted only on channels are suggestions too; without them the field still offers the clients' roles.
    listRoles().then(
      (roles) => setRoleNames(roles.map((r) => r.name)),
      () => setRoleNames([]),
    );
  }, [admin, load]);

  const columns = useMemo(
    () =>
      [
        column.accessor('clientID', { header: 'Client ID', cell: (c) => <Text fw={600} size="sm">{c.getValue()}</Text>, meta: { width: '16%' } satisfies ColumnMeta }),
        column.accessor('name', { header: 'Name', meta: { width: '18%' } satisfies ColumnMeta }),
        column.accessor((c) => c.clientDomain ?? '', { id: 'domain', header: 'Domain', meta: { width: '16%' } satisfies ColumnMeta }),
        column.accessor((c) => c.roles.join(' '), {
          id: 'roles',
          header: 'Roles',
          enableSorting: false,
          cell: (c) => (
            <Group gap={4}>
              {c.row.original.roles.map((r) => (
                <Badge key={r} variant="outline" tt="none">
                  {r}
                </Badge>
              ))}
            </Group>
          ),
        }),
        column.display({ id: 'credentials', header: 'Credentials', cell: (c) => <CredentialBadges client={c.row.original} />, meta: { width: '20%' } satisfies ColumnMeta }),
        column.display({
          id: 'actions',
          header: () => <VisuallyHidden>Actions</VisuallyHidden>,
          meta: { width: 140 } satisfies ColumnMeta,
          cell: (c) => (
            <Group gap={4} wrap="nowrap">
              <Button size="xs" variant="default" aria-label={`Edit client ${c.row.original.clientID}`} onClick={() => setEditing({ mode: 'edit', item: c.row.original })}>
                Edit
              </Button>
              <Button size="xs" variant="subtle" color="red" aria-label={`Delete client ${c.row.original.clientID}`} onClick={() => setDeleting(c.row.original)}>
                Delete
              </Button>
            </Group>
          ),
        }),
      ] as ColumnDef<PublicClient, unknown>[],
    [],
  );

  if (!admin) {
    return (
      <Stack>
        <PageHeader title="Clients" />
        <Alert color="gray">Only administrators can view and change clients.</Alert>
      </Stack>
    );
  }

  const save = (client: PublicClient | null, input: ClientCreateInput | ClientUpdateInput) =>
    client === null ? create(input as ClientCreateInput) : update(client._id, input);
  const saved = (client: PublicClient, token: string | null) => {
    setEditing({ mode: 'closed' });
    setShownToken(token === null ? null : { clientID: client.clientID, token });
    // Roles may have changed: the suggestions and other clients' view come from the list.
    void load();
  };

  return (
    <Stack>
      <PageHeader title="Clients">
        <Button onClick={() => setEditing({ mode: 'new' })}>Add client</Button>
      </PageHeader>
      <Text size="sm" c="dimmed">
        Clients are the systems that send requests through Junction. Channels admit them by client ID or by one of their roles.
      </Text>
      {shownToken !== null && (
        <Alert color="teal" title={`Custom token for ${shownToken.clientID}`} withCloseButton closeButtonLabel="Dismiss" onClose={() => setShownToken(null)}>
          <Stack gap="xs">
            <Text size="sm">Copy this token into the client system now. Junction keeps only a fingerprint of it and cannot show it again.</Text>
            <Group gap="xs" wrap="nowrap">
              <Code style={{ overflowWrap: 'anywhere' }} aria-label="New custom token">
                {shownToken.token}
              </Code>
              <CopyButton value={shownToken.token}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="default" onClick={copy}>
                    {copied ? 'Copied' : 'Copy token'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        </Alert>
      )}
      <ErrorAlert error={error} action="load the clients" />
      <ListSearch
        label="Search clients"
        placeholder="Client ID, name, domain or role"
        value={search}
        onChange={setSearch}
        loading={status === 'loading'}
        loadingLabel="Loading clients"
      />
      <DataTable
        data={clients}
        columns={columns}
        label="Clients"
        getRowId={(c) => c._id}
        search={search}
        empty={status === 'loading' ? 'Loading…' : search !== '' ? 'No client matches the search.' : 'No clients yet. Add one so a system can send requests.'}
      />
      <FormModal opened={editing.mode !== 'closed'} onClose={() => setEditing({ mode: 'closed' })} title={editing.mode === 'edit' ? `Edit client ${editing.item.clientID}` : 'Add client'} size="xl">
        {editing.mode !== 'closed' && (
          <ClientForm
            key={editing.mode === 'edit' ? editing.item._id : 'new'}
            client={editing.mode === 'edit' ? editing.item : null}
            roleSuggestions={[...new Set([...roleNames, ...knownRoles(clients)])].sort((a, b) => a.localeCompare(b))}
            save={save}
            onSaved={saved}
            onCancel={() => setEditing({ mode: 'closed' })}
          />
        )}
      </FormModal>
      <ConfirmDialog
        opened={deleting !== null}
        title={`Delete client ${deleting?.clientID ?? ''}?`}
        confirmLabel="Delete client"
        action="delete the client"
        onConfirm={() => (deleting === null ? Promise.resolve() : remove(deleting._id))}
        onClose={() => setDeleting(null)}
      >
        {`${deleting?.name ?? ''} (${deleting?.clientID ?? ''}) will no longer be able to send requests, and channels stop listing it. This cannot be undone.`}
      </ConfirmDialog>
    </Stack>
  );
}
