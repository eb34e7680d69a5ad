/** The mediators list: who is registered, which are online, for how long, and when each was last heard from. */
import { useCallback, useEffect, useMemo } from 'react';
import { Anchor, Badge, Button, Code, Stack, Text } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { PublicMediator } from '../../../../service/contracts/mediators';
import { ErrorAlert } from '../../components/ErrorAlert';
import { DataTable } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { useMediators } from '../../stores/mediators';
import { currentUptime, formatAgo, formatTime, formatUptime } from './format';
import { useMediatorsLive, useNow } from './live';

const column = createColumnHelper<PublicMediator>();

/** Online/offline in words and colour. */
export function OnlineBadge({ online }: { online: boolean }) {
  return (
    <Badge color={online ? 'teal' : 'gray'} variant="light">
      {online ? 'Online' : 'Offline'}
    </Badge>
  );
}

export function MediatorsPage() {
  const { mediators, uptimes, loading, loaded, error, load } = useMediators();
  const refetch = useCallback(() => void load(), [load]);
  useEffect(refetch, [refetch]);
  useMediatorsLive(refetch);
  const now = useNow();

  const columns = useMemo(
    () =>
      [
        column.accessor('name', {
          header: 'Name',
          cell: (info) => (
            <Anchor component={Link} to={`/mediators/${encodeURIComponent(info.row.original.urn)}`}>
              {info.getValue()}
            </Anchor>
          ),
        }),
        column.accessor('urn', { header: 'URN', cell: (info) => <Code style={{ wordBreak: 'break-all' }}>{info.getValue()}</Code> }),
        column.accessor('version', { header: 'Version' }),
        column.accessor('online', { header: 'Status', cell: (info) => <OnlineBadge online={info.getValue()} /> }),
        column.display({
          id: 'uptime',
          header: 'Uptime',
          cell: ({ row }) => {
            const uptime = uptimes[row.original.urn];
            if (!row.original.online || uptime === null || uptime === undefined) return <Text c="dimmed">–</Text>;
            return formatUptime(currentUptime(uptime, row.original._lastHeartbeat, now));
          },
        }),
        column.accessor('_lastHeartbeat', {
          header: 'Last heartbeat',
          cell: (info) => <span title={formatTime(info.getValue())}>{formatAgo(info.getValue(), now)}</span>,
        }),
      ] as ColumnDef<PublicMediator, unknown>[],
    [uptimes, now],
  );

  return (
    <Stack>
      <PageHeader title="Mediators">
        <Button variant="default" onClick={refetch} loading={loading}>
          Refresh
        </Button>
      </PageHeader>
      <Text c="dimmed" size="sm">
        Mediators are separate services that register with Junction and send it a heartbeat. Open one to change its settings or install its channels.
      </Text>
      <ErrorAlert error={error} action="load the mediators" />
      {loaded && mediators.length === 0 ? (
        <Text>No mediator has registered yet. A mediator registers itself when it starts, using an administrator's API account.</Text>
      ) : (
        <DataTable
          data={mediators}
          columns={columns}
          label="Mediators"
          getRowId={(m) => m.urn}
          sortable={false}
          striped
          busy={loading}
          minWidth={700}
          empty={loading ? 'Loading…' : ''}
        />
      )}
    </Stack>
  );
}
