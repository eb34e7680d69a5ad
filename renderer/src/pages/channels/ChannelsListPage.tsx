/**
 * Every channel with its routing at a glance and whether it is working (issue 36: today's received, failed and
 * refused counts, the last message, the listener, the address to send to), and the quick actions: enable/disable,
 * check routes, send a test message, trigger now, delete, restore.
 */
import { useEffect, useMemo, useState } from 'react';
import { Alert, Anchor, Badge, Button, Code, Group, Loader, Modal, Stack, Switch, Text, Tooltip } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { Channel, ChannelStatusRow } from '../../../../service/contracts/channels';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable } from '../../components/DataTable';
import type { ColumnMeta } from '../../components/DataTable';
import { useChannels } from '../../stores/channels';
import { isAdmin, useSession } from '../../stores/session';
import { STATUS_COLOR, TYPE_LABEL } from './labels';
import { listenerSummary } from './listener';
import { RestoreChannelForm } from './RestoreChannelForm';
import { channelKind } from '../../data/kinds';
import { formatTime } from '../../data/status';
import { CheckRoutesDialog } from './CheckRoutesDialog';
import { TestMessageDialog } from './TestMessageDialog';
import { lastMessageWords, listenerWords, todayWords } from './status-words';

const column = createColumnHelper<Channel>();

function primaryRoute(channel: Channel) {
  return channel.routes.find((r) => r.primary && r.status === 'enabled') ?? channel.routes.find((r) => r.primary);
}

function NameCell({ channel }: { channel: Channel }) {
  return (
    <Stack gap={0}>
      {/* A deleted channel opens read-only, so what its transactions went through can still be read. */}
      <Anchor
        component={Link}
        to={`/channels/${channel._id}`}
        fw={500}
        td={channel.status === 'deleted' ? 'line-through' : undefined}
        c={channel.status === 'deleted' ? 'dimmed' : undefined}
        style={{ overflowWrap: 'anywhere' }}
      >
        {channel.name}
      </Anchor>
      {channel.description !== undefined && (
        <Text size="xs" c="dimmed" lineClamp={2}>
          {channel.description}
        </Text>
      )}
      {channel.priority !== undefined && (
        <Text size="xs" c="dimmed">
          priority {channel.priority}
        </Text>
      )}
    </Stack>
  );
}

const FRAMING_LABEL = { auto: 'MLLP or stream', mllp: 'MLLP', stream: 'stream' } as const;

/** How a tcp or tls channel reads its messages, and whether it wants a client certificate. */
function socketDetail(channel: Channel): string {
  const framing = FRAMING_LABEL[channel.tcpFraming ?? 'auto'];
  return channelKind(channel.type).secure && channel.requireClientCertificate === true ? `${framing}, client certificate required` : framing;
}

function TypeCell({ channel }: { channel: Channel }) {
  const kind = channelKind(channel.type);
  const detail = kind.polls ? channel.pollingSchedule : kind.listens ? socketDetail(channel) : undefined;
  return (
    <Stack gap={0}>
      <Text size="sm">{TYPE_LABEL[channel.type]}</Text>
      {detail !== undefined && (
        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {detail}
        </Text>
      )}
    </Stack>
  );
}

/** The address a sender uses (the first of the status row's), to read or copy. */
function AddressLine({ status }: { status: ChannelStatusRow | undefined }) {
  const address = status?.addresses[0];
  if (address === undefined) return null;
  return (
    <Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }} title={status?.addresses.join('\n')} data-testid="channel-address">
      {address}
    </Text>
  );
}

/**
 * Where a channel takes its requests from, and where a sender sends them: the address to call, then the URL pattern
 * of an http or polling channel or the listener of a tcp or tls one.
 */
function SourceCell({ channel, status }: { channel: Channel; status: ChannelStatusRow | undefined }) {
  return (
    <Stack gap={4}>
      <AddressLine status={status} />
      <Source channel={channel} />
    </Stack>
  );
}

function Source({ channel }: { channel: Channel }) {
  if (channelKind(channel.type).listens) {
    const summary = listenerSummary(channel);
    // A service that does not report the listener (or a deleted channel) still shows the port.
    if (summary === null) return <Text size="sm">port {channel.tcpPort ?? '?'}</Text>;
    return (
      <Stack gap={2} align="flex-start">
        <Badge
          color={summary.color}
          variant="light"
          data-listener-state={channel.listener?.state}
          style={{ textTransform: 'none', height: 'auto', whiteSpace: 'normal', overflowWrap: 'anywhere', textAlign: 'left' }}
        >
          {summary.label}
        </Badge>
        {summary.detail !== undefined && (
          <Text size="xs" c="red" style={{ overflowWrap: 'anywhere' }}>
            {summary.detail}
          </Text>
        )}
      </Stack>
    );
  }
  if (channel.urlPattern === '') {
    return (
      <Text size="sm" c="dimmed">
        none
      </Text>
    );
  }
  return <Code style={{ overflowWrap: 'anywhere', whiteSpace: 'normal' }}>{channel.urlPattern}</Code>;
}

/** Today's counts, each on its line; failed and refused in colour only when there are some, always in words. */
function TodayCell({ status }: { status: ChannelStatusRow | undefined }) {
  if (status === undefined) return <Text size="sm" c="dimmed">–</Text>;
  const words = todayWords(status.today);
  return (
    <Stack gap={0} data-testid="channel-today">
      <Text size="sm">{words.received}</Text>
      <Text size="sm" c={status.today.failed > 0 ? 'red' : undefined} fw={status.today.failed > 0 ? 600 : undefined}>
        {words.failed}
      </Text>
      <Text size="sm" fw={status.today.refused > 0 ? 600 : undefined}>
        {status.today.refused > 0 ? (
          <Anchor component={Link} to="/refusals" size="sm">
            {words.refused}
          </Anchor>
        ) : (
          words.refused
        )}
      </Text>
    </Stack>
  );
}

/** When the last message came, relative, with the full time on hover; and a listener that is not listening, said. */
function LastMessageCell({ status }: { status: ChannelStatusRow | undefined }) {
  if (status === undefined) return <Text size="sm" c="dimmed">–</Text>;
  const listener = listenerWords(status.listener);
  return (
    <Stack gap={2}>
      <Text size="sm" title={status.lastMessageAt === null ? undefined : formatTime(status.lastMessageAt)}>
        {lastMessageWords(status.lastMessageAt, Date.now())}
      </Text>
      {listener !== null && listener.color !== 'teal' && (
        <Text size="xs" c={listener.color === 'red' ? 'red' : 'dimmed'} style={{ overflowWrap: 'anywhere' }} data-testid="channel-listener">
          {listener.label}
        </Text>
      )}
    </Stack>
  );
}

interface ActionsProps {
  channel: Channel;
  onDelete: (channel: Channel) => void;
  onRestore: (channel: Channel) => void;
  onCheck: (channel: Channel) => void;
  onTest: (channel: Channel) => void;
}

function ActionsCell({ channel, onDelete, onRestore, onCheck, onTest }: ActionsProps) {
  const busy = useChannels((s) => s.busy[channel._id]);
  const setStatus = useChannels((s) => s.setStatus);
  const trigger = useChannels((s) => s.trigger);
  if (channel.status === 'deleted') {
    return (
      <Tooltip label="Bring the channel back, enabled or disabled">
        <Button size="compact-xs" variant="light" aria-label={`Restore ${channel.name}`} loading={busy === 'restore'} onClick={() => onRestore(channel)}>
          Restore
        </Button>
      </Tooltip>
    );
  }
  const enabled = channel.status === 'enabled';
  return (
    <Group gap="xs" wrap="wrap">
      <Tooltip label={enabled ? 'Enabled: requests are routed. Switch off to stop routing.' : 'Disabled: requests are not routed. Switch on to route them.'}>
        <Switch
          aria-label={`Enable ${channel.name}`}
          checked={enabled}
          disabled={busy !== undefined}
          onChange={(e) => void setStatus(channel, e.currentTarget.checked)}
        />
      </Tooltip>
      {channelKind(channel.type).polls && (
        <Button
          size="compact-xs"
          variant="light"
          aria-label={`Trigger ${channel.name} now`}
          loading={busy === 'trigger'}
          disabled={!enabled || (busy !== undefined && busy !== 'trigger')}
          title={enabled ? undefined : 'Enable the channel to trigger it'}
          onClick={() => void trigger(channel)}
        >
          Trigger now
        </Button>
      )}
      <Button size="compact-xs" variant="light" aria-label={`Check routes of ${channel.name}`} onClick={() => onCheck(channel)}>
        Check routes
      </Button>
      {!channelKind(channel.type).polls && (
        <Button
          size="compact-xs"
          variant="light"
          // The name starts with the visible words, as speech input users say them.
          aria-label={`Send test message through ${channel.name}`}
          disabled={!enabled}
          title={enabled ? undefined : 'Enable the channel to send a test message through it'}
          onClick={() => onTest(channel)}
        >
          Send test
        </Button>
      )}
      {/* Named "Metrics" in its row (the title says whose): a name holding the channel's would compete with its link. */}
      <Button size="compact-xs" variant="subtle" component={Link} to={`/channels/${channel._id}/metrics`} title={`Metrics of ${channel.name}`}>
        Metrics
      </Button>
      <Button size="compact-xs" variant="subtle" color="red" aria-label={`Delete ${channel.name}`} loading={busy === 'delete'} onClick={() => onDelete(channel)}>
        Delete
      </Button>
    </Group>
  );
}

export function ChannelsListPage() {
  const { channels, statuses, statusSince, statusError, includeDeleted, loading, loaded, loadError, actionError, notice } = useChannels();
  const load = useChannels((s) => s.load);
  const setIncludeDeleted = useChannels((s) => s.setIncludeDeleted);
  const remove = useChannels((s) => s.remove);
  const restore = useChannels((s) => s.restore);
  const dismiss = useChannels((s) => s.dismiss);
  const admin = isAdmin(useSession((s) => s.user));
  const [confirming, setConfirming] = useState<Channel | null>(null);
  const [restoring, setRestoring] = useState<Channel | null>(null);
  const [checking, setChecking] = useState<Channel | null>(null);
  const [testing, setTesting] = useState<Channel | null>(null);

  useEffect(() => {
    void load();
  }, [load]);

  // A listener being bound is looked at again shortly, so the list settles on listening or failed by itself.
  const starting = channels.some((c) => c.listener?.state === 'starting');
  useEffect(() => {
    if (!starting || loading) return;
    const timer = setTimeout(() => void load(), 1500);
    return () => clearTimeout(timer);
  }, [starting, loading, channels, load]);

  const columns = useMemo(
    () =>
      [
        column.accessor('name', { header: 'Name', cell: (c) => <NameCell channel={c.row.original} />, meta: { width: '14%' } satisfies ColumnMeta }),
        column.accessor('type', { header: 'Type', cell: (c) => <TypeCell channel={c.row.original} />, meta: { width: '8%' } satisfies ColumnMeta }),
        column.accessor('urlPattern', {
          header: 'Send to',
          enableSorting: false,
          meta: { width: '19%' } satisfies ColumnMeta,
          cell: (c) => <SourceCell channel={c.row.original} status={statuses[c.row.original._id]} />,
        }),
        column.display({ id: 'today', header: 'Today', meta: { width: '9%' } satisfies ColumnMeta, cell: (c) => <TodayCell status={statuses[c.row.original._id]} /> }),
        column.display({
          id: 'last',
          header: 'Last message',
          meta: { width: '10%' } satisfies ColumnMeta,
          cell: (c) => <LastMessageCell status={statuses[c.row.original._id]} />,
        }),
        column.accessor('status', {
          header: 'Status',
          meta: { width: '8%' } satisfies ColumnMeta,
          cell: (c) => (
            <Badge color={STATUS_COLOR[c.getValue()]} variant="light" style={{ textTransform: 'none', overflow: 'visible' }}>
              {c.getValue()}
            </Badge>
          ),
        }),
        column.display({
          id: 'primary',
          header: 'Primary route',
          meta: { width: '12%' } satisfies ColumnMeta,
          cell: (c) => {
            const route = primaryRoute(c.row.original);
            if (route === undefined) return <Text size="sm" c="dimmed">none</Text>;
            return (
              <Stack gap={0}>
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {route.name}
                </Text>
                <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  {route.host}:{route.port}
                </Text>
              </Stack>
            );
          },
        }),
        ...(admin
          ? [column.display({ id: 'actions', header: 'Actions', meta: { width: '20%' } satisfies ColumnMeta, cell: (c) => <ActionsCell channel={c.row.original} onDelete={setConfirming} onRestore={setRestoring} onCheck={setChecking} onTest={setTesting} /> })]
          : []),
      ] as ColumnDef<Channel, unknown>[],
    [admin, statuses],
  );

  // The dialog closes at once; the list shows the outcome (the store reports failures on the page).
  const confirmDelete = () => {
    if (confirming !== null) void remove(confirming);
    return Promise.resolve();
  };

  return (
    <Stack gap="md">
      <PageHeader title="Channels">
        {admin && (
          <Button component={Link} to="/channels/new">
            New channel
          </Button>
        )}
      </PageHeader>
      <Text c="dimmed" size="sm">
        A channel decides which requests Junction accepts and where it sends them. The first enabled channel whose URL pattern matches, by priority
        (1 first), handles a request. A TCP or TLS channel takes whatever arrives on its own port.
      </Text>
      {statusSince !== null && (
        <Text c="dimmed" size="sm">
          Today counts from {formatTime(statusSince.since)} ({statusSince.timeZone}). Received and failed come from the metrics; refused are requests turned
          away before they became transactions (see Refused).
        </Text>
      )}
      {statusError !== null && <ErrorAlert error={statusError} action="read how the channels are doing today" />}

      <ErrorAlert error={loadError} action="load the channels" />
      {actionError !== null && <ErrorAlert error={actionError.error} action={actionError.action} onClose={dismiss} />}
      {notice !== null && (
        <Alert color="teal" role="status" withCloseButton closeButtonLabel="Dismiss" onClose={dismiss}>
          {notice.text}{' '}
          {notice.transactionId !== undefined && (
            <Anchor component={Link} to={`/transactions/${notice.transactionId}`}>
              View the transaction
            </Anchor>
          )}
        </Alert>
      )}

      <Group justify="space-between">
        <Switch label="Show deleted channels" checked={includeDeleted} onChange={(e) => setIncludeDeleted(e.currentTarget.checked)} />
        {loading && <Loader size="sm" aria-label="Loading channels" />}
      </Group>

      {loaded && channels.length === 0 ? (
        <Text>
          No channels yet.{' '}
          {admin ? 'Create one with “New channel” to start routing requests.' : 'An administrator can create one.'}
        </Text>
      ) : (
        <DataTable
          data={channels}
          columns={columns}
          label="Channels"
          getRowId={(c) => c._id}
          layout="fixed"
          striped
          cellAlign="top"
          empty={loading ? 'Loading…' : 'No channels to show.'}
        />
      )}

      <ConfirmDialog
        opened={confirming !== null}
        title={`Delete channel “${confirming?.name ?? ''}”?`}
        confirmLabel="Delete channel"
        action="delete the channel"
        onConfirm={confirmDelete}
        onClose={() => setConfirming(null)}
      >
        <Text size="sm">
          Junction stops routing requests through this channel. If transactions were recorded through it, the channel is kept, marked deleted, so those
          transactions stay readable; it can be restored from this list with “Show deleted channels”.
        </Text>
      </ConfirmDialog>

      <CheckRoutesDialog channel={checking} onClose={() => setChecking(null)} />
      <TestMessageDialog
        channel={testing}
        onClose={() => {
          setTesting(null);
          // The test's transaction counts today and is the last message now.
          void load();
        }}
      />

      <Modal opened={restoring !== null} onClose={() => setRestoring(null)} title={`Restore channel “${restoring?.name ?? ''}”`}>
        {restoring !== null && <RestoreChannelForm channel={restoring} onRestore={(choice) => restore(restoring, choice)} onDone={() => setRestoring(null)} />}
      </Modal>
    </Stack>
  );
}
