/** The systems allowed to send requests: list, add, edit, delete. Admins only (the API refuses everyone else). */
import { useEffect, useMemo, useState } from 'react';
import { Alert, Badge, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import type { ClientCreateInput, ClientUpdateInput, PublicClient } from '../../../../service/contracts/clients';
import { knownRoles, useClients } from '../../stores/clients';
import { listRoles } from '../../api/roles';
import { ClientForm, CredentialBadges } from './ClientForm';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import type { ColumnMeta } from '../../components/DataTable';
import { adminOnly } from '../../components/AdminOnly';
import { DeleteButton, EditButton, ListPage, actionsColumn, useListPage } from '../../components/ListPage';

const column = createColumnHelper<PublicClient>();

function Clients() {
  const { items: clients, status, error, load, create, update, remove } = useClients();
  const { editing, setEditing, closeForm, deleting, setDeleting } = useListPage<PublicClient>();
  const [shownToken, setShownToken] = useState<{ clientID: string; token: string } | null>(null);

  const [roleNames, setRoleNames] = useState<string[]>([]);

  useEffect(() => {
    void load();
    // Roles granted only on channels are suggestions too; without them the field still offers the clients' roles.
    listRoles().then(
      (roles) => setRoleNames(roles.map((r) => r.name)),
      () => setRoleNames([]),
    );
  }, [load]);

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
        actionsColumn<PublicClient>(140, (client) => (
          <>
            <EditButton name={`client ${client.clientID}`} onClick={() => setEditing({ mode: 'edit', item: client })} />
            <DeleteButton name={`client ${client.clientID}`} onClick={() => setDeleting(client)} />
          </>
        )),
      ] as ColumnDef<PublicClient, unknown>[],
    [setEditing, setDeleting],
  );

  const save = (client: PublicClient | null, input: ClientCreateInput | ClientUpdateInput) =>
    client === null ? create(input as ClientCreateInput) : update(client._id, input);
  const saved = (client: PublicClient, token: string | null) => {
    closeForm();
    setShownToken(token === null ? null : { clientID: client.clientID, token });
    // Roles may have changed: the suggestions and other clients' view come from the list.
    void load();
  };

  return (
    <ListPage
      title="Clients"
      plural="clients"
      actions={<Button onClick={() => setEditing({ mode: 'new' })}>Add client</Button>}
      intro="Clients are the systems that send requests through Junction. Channels admit them by client ID or by one of their roles."
      notice={
        shownToken !== null && (
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
        )
      }
      items={clients}
      status={status}
      error={error}
      searchPlaceholder="Client ID, name, domain or role"
      noMatch="No client matches the search."
      none="No clients yet. Add one so a system can send requests."
      rowId={(c) => c._id}
      columns={columns}
      editing={editing}
      closeForm={closeForm}
      formTitle={(client) => (client === null ? 'Add client' : `Edit client ${client.clientID}`)}
      formSize="xl"
      form={(client) => (
        <ClientForm
          client={client}
          roleSuggestions={[...new Set([...roleNames, ...knownRoles(clients)])].sort((a, b) => a.localeCompare(b))}
          save={save}
          onSaved={saved}
          onCancel={closeForm}
        />
      )}
    >
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
    </ListPage>
  );
}

export const ClientsPage = adminOnly('Clients', 'Only administrators can view and change clients.', Clients);
