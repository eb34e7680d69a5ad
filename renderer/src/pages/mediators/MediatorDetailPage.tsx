/** One mediator: its state, settings form, endpoints and default channels, and deleting it. */
import { useCallback, useEffect, useState } from 'react';
import { Alert, Anchor, Badge, Button, Checkbox, Code, Group, Loader, Modal, Stack, Table, Text } from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import type { InstalledChannel, MediatorRouteView, PublicMediator } from '../../../../service/contracts/mediators';
import { deleteMediator, installMediatorChannels } from '../../api/mediators';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FieldList } from '../../components/FieldList';
import type { FieldRow } from '../../components/FieldList';
import { Section } from '../../components/Section';
import { PageHeader } from '../../components/PageHeader';
import { useMediators } from '../../stores/mediators';
import { ConfigForm } from './ConfigForm';
import { currentUptime, formatAgo, formatTime, formatUptime } from './format';
import { useMediatorsLive, useNow } from './live';
import { OnlineBadge } from './MediatorsPage';
import { ROUTE_KINDS } from '../../data/kinds';
import type { RouteKind } from '../../data/kinds';

function address(route: MediatorRouteView): string {
  // A kind this console does not know (OpenHIM's kafka, which Junction refuses) is written as its own name.
  const kind = (ROUTE_KINDS as Record<string, RouteKind | undefined>)[route.type ?? 'http'];
  const scheme = kind === undefined ? String(route.type) : kind.scheme(route.secured === true);
  return `${scheme}://${route.host}:${route.port}${route.path ?? ''}`;
}

function Summary({ mediator }: { mediator: PublicMediator }) {
  const now = useNow();
  const uptime = useMediators((s) => s.uptimes[mediator.urn]);
  const rows: FieldRow[] = [
    ['URN', <Code key="urn" style={{ wordBreak: 'break-all' }}>{mediator.urn}</Code>],
    ['Version', mediator.version],
    ['Status', <OnlineBadge key="status" online={mediator.online} />],
    ['Uptime', mediator.online && uptime !== null && uptime !== undefined ? formatUptime(currentUptime(uptime, mediator._lastHeartbeat, now)) : '–'],
    ['Last heartbeat', mediator._lastHeartbeat === undefined ? 'never' : `${formatAgo(mediator._lastHeartbeat, now)} (${formatTime(mediator._lastHeartbeat)})`],
    ['Registered', formatTime(mediator.createdAt)],
  ];
  if (mediator.description !== undefined && mediator.description !== '') rows.splice(0, 0, ['Description', mediator.description]);
  return <FieldList rows={rows} withTableBorder aria-label="Mediator summary" />;
}

function Endpoints({ mediator }: { mediator: PublicMediator }) {
  if (mediator.endpoints.length === 0) return <Text>No endpoints registered.</Text>;
  return (
    <Table.ScrollContainer minWidth={500}>
      <Table aria-label="Endpoints">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Address</Table.Th>
            <Table.Th>Sign-in</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {mediator.endpoints.map((route) => (
            <Table.Tr key={`${route.name}-${route.host}-${route.port}`}>
              <Table.Td>{route.name}</Table.Td>
              <Table.Td>
                <Code style={{ wordBreak: 'break-all' }}>{address(route)}</Code>
              </Table.Td>
              <Table.Td>{route.username !== undefined && route.username !== '' ? `as ${route.username}` : 'none'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function DefaultChannels({ mediator, onInstalled }: { mediator: PublicMediator; onInstalled: () => void }) {
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [installed, setInstalled] = useState<InstalledChannel[] | null>(null);
  const defaults = mediator.defaultChannelConfig;
  if (defaults.length === 0) return <Text>This mediator offers no default channels.</Text>;
  const installedId = (name: string) => mediator.installedChannels.find((c) => c.name === name)?.channelId;

  const install = (names: string[]) => {
    setBusy(true);
    setError(null);
    setInstalled(null);
    installMediatorChannels(mediator.urn, names)
      .then((channels) => {
        setInstalled(channels);
        setChosen([]);
        onInstalled();
      })
      .catch(setError)
      .finally(() => setBusy(false));
  };

  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Installing a default channel creates a channel with the mediator&apos;s suggested routes. Choose some, or install them all.
      </Text>
      <ErrorAlert error={error} action="install the channels" onClose={() => setError(null)} />
      {installed === null ? null : (
        <Alert color="teal" title="Channels installed" role="status" withCloseButton closeButtonLabel="Dismiss" onClose={() => setInstalled(null)}>
          Installed: {installed.map((c) => c.name).join(', ')}.
        </Alert>
      )}
      <Table.ScrollContainer minWidth={500}>
        <Table aria-label="Default channels">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={60}>Choose</Table.Th>
              <Table.Th>Channel</Table.Th>
              <Table.Th>URL pattern</Table.Th>
              <Table.Th>Routes</Table.Th>
              <Table.Th>Installed</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {defaults.map((channel) => {
              const id = installedId(channel.name);
              return (
                <Table.Tr key={channel.name}>
                  <Table.Td>
                    <Checkbox
                      aria-label={`Choose ${channel.name}`}
                      checked={chosen.includes(channel.name)}
                      onChange={(e) => {
                        const on = e.currentTarget.checked;
                        setChosen((c) => (on ? [...c, channel.name] : c.filter((n) => n !== channel.name)));
                      }}
                    />
                  </Table.Td>
                  <Table.Td>{channel.name}</Table.Td>
                  <Table.Td>{channel.urlPattern === undefined ? '–' : <Code style={{ wordBreak: 'break-all' }}>{channel.urlPattern}</Code>}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-word' }}>{channel.routes.map(address).join(', ')}</Table.Td>
                  <Table.Td>
                    {id === undefined ? (
                      <Text c="dimmed">No</Text>
                    ) : (
                      <Anchor component={Link} to={`/channels/${encodeURIComponent(id)}`}>
                        Yes, open channel
                      </Anchor>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group>
        <Button onClick={() => install(chosen)} disabled={chosen.length === 0} loading={busy}>
          Install chosen channels{chosen.length > 0 ? ` (${chosen.length})` : ''}
        </Button>
        <Button variant="default" onClick={() => install([])} loading={busy}>
          Install all
        </Button>
      </Group>
    </Stack>
  );
}

function DeleteButton({ mediator }: { mediator: PublicMediator }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const navigate = useNavigate();
  const removed = useMediators((s) => s.removed);
  const confirm = () => {
    setBusy(true);
    setError(null);
    deleteMediator(mediator.urn)
      .then(() => {
        removed(mediator.urn);
        void navigate('/mediators');
      })
      .catch((err: unknown) => {
        setError(err);
        setBusy(false);
      });
  };
  return (
    <>
      <Button color="red" variant="light" onClick={() => setOpen(true)}>
        Delete mediator
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="Delete this mediator?">
        <Stack>
          <ErrorAlert error={error} action="delete the mediator" />
          <Text>
            {mediator.name} (<Code>{mediator.urn}</Code>) will be removed from Junction. Channels installed from it stay. If the mediator is still running, it registers
            again when it next starts.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)} data-autofocus>
              Keep it
            </Button>
            <Button color="red" onClick={confirm} loading={busy}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

export function MediatorDetailPage() {
  const { urn = '' } = useParams();
  const { current, currentError, open, setCurrent } = useMediators();
  const refetch = useCallback(() => void open(urn), [open, urn]);
  useEffect(refetch, [refetch]);
  useMediatorsLive(refetch);
  const mediator = current?.urn === urn ? current : null;

  return (
    <Stack>
      <Anchor component={Link} to="/mediators" size="sm">
        ← All mediators
      </Anchor>
      {mediator === null ? (
        <>
          <PageHeader title="Mediator" />
          <ErrorAlert error={currentError} action="load the mediator" />
          {currentError === null ? <Loader aria-label="Loading the mediator" /> : null}
        </>
      ) : (
        <>
          <PageHeader title={mediator.name}>
            <Badge variant="outline">Version {mediator.version}</Badge>
            <DeleteButton mediator={mediator} />
          </PageHeader>
          <Summary mediator={mediator} />
          <Section title="Settings">
            {/* A new version can bring new definitions: the form starts again from them. */}
            <ConfigForm key={`${mediator.urn}@${mediator.version}`} mediator={mediator} onSaved={setCurrent} />
          </Section>
          <Section title="Endpoints">
            <Endpoints mediator={mediator} />
          </Section>
          <Section title="Default channels">
            <DefaultChannels mediator={mediator} onInstalled={refetch} />
          </Section>
        </>
      )}
    </Stack>
  );
}
